import { describe, expect, it } from "vitest";
import { verifyPassword } from "@/lib/auth/password";
import { inTransaction } from "@/lib/db/transaction";
import { ROLES } from "@/lib/domain/roles";
import { AppError } from "@/lib/errors";
import { consumeRateLimit } from "@/lib/services/access/consume-rate-limit";
import { verifyCredentials } from "@/lib/services/access/verify-credentials";
import { DEMO_PASSWORD, demoEmail, seedDemoUsers } from "@/lib/services/admin/seed-demo-users";
import { upsertUser } from "@/lib/services/admin/upsert-user";
import { openTestDb } from "./setup/test-db";

const { db } = openTestDb();
// A refill far longer than any test run: the only tokens are the burst, however slow the machine.
const limits = { perAccount: 5, perIp: 10, windowSeconds: 900, account: { burst: 10, refillSeconds: 1_000_000 } };
let ipCounter = 0;
const freshIp = () => `10.0.${Math.floor(++ipCounter / 250)}.${ipCounter % 250}`;

/** The real argon2 check, counting the hashes it computes. */
function countingCheck() {
  let hashes = 0;
  return {
    check: (passwordHash: string, password: string) => {
      hashes++;
      return verifyPassword(passwordHash, password);
    },
    hashes: () => hashes,
  };
}

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

  it("gives one account its rate across many addresses in parallel: guesses past it are refused and hash nothing", async () => {
    await upsertUser(db, { email: "target@example.com", roles: ["finance"], password: "secret" });
    // 100 wrong guesses from 20 addresses, 5 each (within every per-address limit), all at once.
    const addresses = Array.from({ length: 20 }, freshIp);
    const guesses = (email: string, counted: ReturnType<typeof countingCheck>) =>
      Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          verifyCredentials(
            db,
            { email, password: `guess-${i}`, ip: addresses[i % addresses.length] ?? "" },
            limits,
            counted.check,
          ).then(
            (answer) => (answer === null ? "wrong" : "signed in"),
            (error: unknown) => (error instanceof AppError ? error.code : "thrown"),
          ),
        ),
      );
    const tally = (answers: string[]) => {
      const counts: Record<string, number> = {};
      for (const answer of answers) counts[answer] = (counts[answer] ?? 0) + 1;
      return counts;
    };
    const real = countingCheck();
    expect(tally(await guesses("target@example.com", real))).toEqual({
      wrong: limits.account.burst,
      rate_limited: 100 - limits.account.burst,
    });
    expect(real.hashes()).toBe(limits.account.burst);
    // An email with no account is refused after the same number: the rate does not reveal which exist.
    const none = countingCheck();
    expect(tally(await guesses("nobody-here@example.com", none))).toEqual({
      wrong: limits.account.burst,
      rate_limited: 100 - limits.account.burst,
    });
    expect(none.hashes()).toBe(limits.account.burst);
  });

  it("does not lock the owner out: their usual address still signs in, and the bucket refills for a new one", async () => {
    await upsertUser(db, { email: "owner@example.com", roles: ["finance"], password: "secret" });
    const home = freshIp();
    expect(
      (await verifyCredentials(db, { email: "owner@example.com", password: "secret", ip: home }, limits))?.email,
    ).toBe("owner@example.com");
    // A stranger empties the account's bucket (the owner's sign-in gave its token back).
    for (let i = 0; i < limits.account.burst; i++) {
      await verifyCredentials(db, { email: "owner@example.com", password: `guess-${i}`, ip: freshIp() }, limits);
    }
    await expect(
      verifyCredentials(db, { email: "owner@example.com", password: "guess", ip: freshIp() }, limits),
    ).rejects.toMatchObject({ code: "rate_limited" });
    // The owner, from the address they signed in from before, is not held to the stranger's rate.
    const owner = await verifyCredentials(db, { email: "owner@example.com", password: "secret", ip: home }, limits);
    expect(owner?.email).toBe("owner@example.com");
    // From a new address the owner waits for a token, and is told how long; it does come back.
    const travelling = { email: "owner@example.com", password: "secret", ip: freshIp() };
    const refused = await verifyCredentials(db, travelling, limits).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: "rate_limited" });
    expect((refused as AppError).extra.retryAfterSeconds).toBeGreaterThan(0);
    await db.$executeRaw`UPDATE sign_in_buckets SET refilled_at = refilled_at - make_interval(secs => ${limits.account.refillSeconds}::int)
      WHERE account = 'owner@example.com'`;
    expect((await verifyCredentials(db, travelling, limits))?.email).toBe("owner@example.com");
  });

  it("limits attempts per account and address, even with the right password, without touching other addresses", async () => {
    await upsertUser(db, { email: "pair@example.com", roles: ["finance"], password: "secret" });
    const ip = freshIp();
    for (let i = 0; i < limits.perAccount; i++) {
      await verifyCredentials(db, { email: "pair@example.com", password: `guess-${i}`, ip }, limits);
    }
    const error = await verifyCredentials(db, { email: "pair@example.com", password: "secret", ip }, limits).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe("rate_limited");
    expect((error as AppError).extra.retryAfterSeconds).toBeGreaterThan(0);
    const elsewhere = await verifyCredentials(
      db,
      { email: "pair@example.com", password: "secret", ip: freshIp() },
      limits,
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

  it("counts failures, not successes: an office behind one address signs in past the address's limit", async () => {
    const office = freshIp();
    const people = Array.from({ length: limits.perIp + 5 }, (_, i) => `shift-${i}@example.com`);
    for (const email of people) await upsertUser(db, { email, roles: ["operator"], password: "secret" });
    for (const email of people) {
      expect((await verifyCredentials(db, { email, password: "secret", ip: office }, limits))?.email).toBe(email);
    }
    const [counted] = await db.$queryRaw<{ count: number }[]>`
      SELECT count FROM rate_limit_buckets WHERE key = ${`login:ip:${office}`}`;
    expect(counted?.count).toBe(0);
    // Failures still count: the address's limit stops a spray once it has failed perIp times.
    for (let i = 0; i < limits.perIp; i++) {
      expect(
        await verifyCredentials(db, { email: `nobody-${i}@example.com`, password: "x", ip: office }, limits),
      ).toBeNull();
    }
    await expect(
      verifyCredentials(db, { email: "shift-0@example.com", password: "secret", ip: office }, limits),
    ).rejects.toMatchObject({ code: "rate_limited" });
  });

  it("gives the account's token back on a correct password, so many successes from new addresses never run it dry", async () => {
    await upsertUser(db, { email: "roamer@example.com", roles: ["finance"], password: "secret" });
    for (let i = 0; i < limits.account.burst * 2; i++) {
      const signedIn = await verifyCredentials(
        db,
        { email: "roamer@example.com", password: "secret", ip: freshIp() },
        limits,
      );
      expect(signedIn?.email).toBe("roamer@example.com");
    }
    // Wrong guesses from new addresses still spend it: burst of them pass to the hash, the next is refused.
    for (let i = 0; i < limits.account.burst; i++) {
      expect(
        await verifyCredentials(db, { email: "roamer@example.com", password: `g-${i}`, ip: freshIp() }, limits),
      ).toBeNull();
    }
    await expect(
      verifyCredentials(db, { email: "roamer@example.com", password: "g", ip: freshIp() }, limits),
    ).rejects.toMatchObject({ code: "rate_limited" });
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
