import { describe, expect, it } from "vitest";
import { inTransaction } from "@/lib/db/transaction";
import { ROLES } from "@/lib/domain/roles";
import { AppError } from "@/lib/errors";
import { consumeRateLimit } from "@/lib/services/access/consume-rate-limit";
import { verifyCredentials } from "@/lib/services/access/verify-credentials";
import { DEMO_PASSWORD, demoEmail, seedDemoUsers } from "@/lib/services/admin/seed-demo-users";
import { upsertUser } from "@/lib/services/admin/upsert-user";
import { openTestDb } from "./setup/test-db";

const { db } = openTestDb();
const limits = { perAccount: 3, perIp: 10, windowSeconds: 900 };
let ipCounter = 0;
const freshIp = () => `10.0.0.${++ipCounter}`;

describe("password sign-in", () => {
  it("accepts the right password and stores only an argon2id hash", async () => {
    const user = await upsertUser(db, {
      email: "Ana@Example.com",
      roles: ["reviewer", "finance"],
      password: "correct horse",
    });
    const stored = await db.user.findUniqueOrThrow({ where: { id: user.id } });
    expect(stored.email).toBe("ana@example.com");
    expect(stored.passwordHash).toMatch(/^\$argon2id\$/);
    expect(stored.passwordHash).not.toContain("correct horse");
    const signedIn = await verifyCredentials(
      db,
      { email: "ANA@example.com", password: "correct horse", ip: freshIp() },
      limits,
    );
    expect(signedIn?.roles.sort()).toEqual(["finance", "reviewer"]);
    expect((await db.user.findUniqueOrThrow({ where: { id: user.id } })).lastSignInAt).not.toBeNull();
  });

  it("answers a wrong password and an unknown email the same way", async () => {
    await upsertUser(db, { email: "bo@example.com", roles: ["operator"], password: "right" });
    expect(
      await verifyCredentials(db, { email: "bo@example.com", password: "wrong", ip: freshIp() }, limits),
    ).toBeNull();
    expect(
      await verifyCredentials(db, { email: "nobody@example.com", password: "right", ip: freshIp() }, limits),
    ).toBeNull();
  });

  it("refuses a deactivated account even with the right password", async () => {
    const user = await upsertUser(db, { email: "gone@example.com", roles: ["admin"], password: "pw" });
    await db.user.update({ where: { id: user.id }, data: { active: false } });
    expect(
      await verifyCredentials(db, { email: "gone@example.com", password: "pw", ip: freshIp() }, limits),
    ).toBeNull();
  });

  it("does not lock the owner out: failures from other addresses slow the account down but never refuse it", async () => {
    await upsertUser(db, { email: "target@example.com", roles: ["finance"], password: "secret" });
    const delays: number[] = [];
    const record = async (ms: number) => delays.push(ms);
    // A guesser rotating addresses, more times than the per-(account, address) limit allows from one.
    for (let i = 0; i < limits.perAccount * 3; i++) {
      expect(
        await verifyCredentials(
          db,
          { email: "target@example.com", password: `guess-${i}`, ip: freshIp() },
          limits,
          record,
        ),
      ).toBeNull();
    }
    // Each failure made the next answer wait longer, up to the cap: a delay, not a lock.
    expect(delays.length).toBeGreaterThan(0);
    for (let i = 1; i < delays.length; i++) expect(delays[i]).toBeGreaterThanOrEqual(delays[i - 1] ?? 0);
    expect(delays.at(-1)).toBeGreaterThan(delays[0] ?? 0);
    const owner = await verifyCredentials(
      db,
      { email: "target@example.com", password: "secret", ip: freshIp() },
      limits,
      record,
    );
    expect(owner?.email).toBe("target@example.com");
    // The owner's success clears the account's failures: their next sign-in is not slowed.
    delays.length = 0;
    await verifyCredentials(db, { email: "target@example.com", password: "secret", ip: freshIp() }, limits, record);
    expect(delays).toEqual([]);
  });

  it("limits attempts per account and address, even with the right password, without touching other addresses", async () => {
    await upsertUser(db, { email: "pair@example.com", roles: ["finance"], password: "secret" });
    const ip = freshIp();
    const noPause = async () => undefined;
    for (let i = 0; i < limits.perAccount; i++) {
      await verifyCredentials(db, { email: "pair@example.com", password: `guess-${i}`, ip }, limits, noPause);
    }
    const error = await verifyCredentials(
      db,
      { email: "pair@example.com", password: "secret", ip },
      limits,
      noPause,
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe("rate_limited");
    expect((error as AppError).extra.retryAfterSeconds).toBeGreaterThan(0);
    const elsewhere = await verifyCredentials(
      db,
      { email: "pair@example.com", password: "secret", ip: freshIp() },
      limits,
      noPause,
    );
    expect(elsewhere?.email).toBe("pair@example.com");
  });

  it("limits attempts per address across accounts", async () => {
    const ip = freshIp();
    for (let i = 0; i < limits.perIp; i++) {
      await verifyCredentials(db, { email: `spray-${i}@example.com`, password: "x", ip }, limits);
    }
    await expect(
      verifyCredentials(db, { email: "spray-last@example.com", password: "x", ip }, limits),
    ).rejects.toMatchObject({
      code: "rate_limited",
    });
  });

  it("counts concurrent attempts exactly (one statement, no lost updates)", async () => {
    const results = await Promise.all(Array.from({ length: 25 }, () => consumeRateLimit(db, "race", 10, 60)));
    expect(results.map((r) => r.count).sort((a, b) => a - b)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    expect(results.filter((r) => r.allowed)).toHaveLength(10);
  });

  it("relaxes the commit of its own statement only, never of a caller's transaction", async () => {
    const inside = await inTransaction(db, async (tx) => {
      await consumeRateLimit(tx, "in-a-transaction", 10, 60);
      return tx.$queryRaw<{ synchronous_commit: string }[]>`SHOW synchronous_commit`;
    });
    expect(inside[0]?.synchronous_commit).toBe("on");
    expect((await consumeRateLimit(db, "in-a-transaction", 10, 60)).count).toBe(2);
  });
});

describe("demo users", () => {
  it("are created once, one per role, and never re-created", async () => {
    expect(await seedDemoUsers(db)).toBe(true);
    const users = await db.user.findMany({ where: { email: { endsWith: "@demo.local" } } });
    expect(users.map((u) => u.roles)).toHaveLength(ROLES.length);
    const operator = await verifyCredentials(
      db,
      { email: demoEmail("operator"), password: DEMO_PASSWORD, ip: freshIp() },
      limits,
    );
    expect(operator?.roles).toEqual(["operator"]);
    await db.user.delete({ where: { email: demoEmail("admin") } });
    expect(await seedDemoUsers(db)).toBe(false);
    expect(await db.user.count({ where: { email: demoEmail("admin") } })).toBe(0);
  });
});
