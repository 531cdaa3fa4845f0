import { beforeAll, describe, expect, it } from "vitest";
import { verifyPassword } from "@/lib/auth/password";
import type { PrismaClient } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import { duplicateCost } from "@/lib/domain/money";
import type { Principal } from "@/lib/domain/principal";
import { AppError } from "@/lib/errors";
import { parseWebhookAllowList, webhookAllowListFromEnv } from "@/lib/notify/webhook-allow-list";
import type { UserActor } from "@/lib/services/access/actor";
import { authenticateToken } from "@/lib/services/access/authenticate-token";
import { createAccessToken } from "@/lib/services/access/create-access-token";
import { listAccessTokens } from "@/lib/services/access/list-access-tokens";
import { revokeAccessToken } from "@/lib/services/access/revoke-access-token";
import { createUser } from "@/lib/services/admin/create-user";
import { deleteProviderPrice } from "@/lib/services/admin/delete-provider-price";
import { DEMO_PRODUCER, findDemoProducerKey } from "@/lib/services/admin/demo-producer";
import { listProviderPrices, lookupProviderPrice } from "@/lib/services/admin/list-provider-prices";
import { listUsers } from "@/lib/services/admin/list-users";
import { resetUserPassword } from "@/lib/services/admin/reset-user-password";
import { type SavePriceInput, saveProviderPrice } from "@/lib/services/admin/save-provider-price";
import { setUserActive } from "@/lib/services/admin/set-user-active";
import { setUserRoles } from "@/lib/services/admin/set-user-roles";
import { listNotificationEndpoints } from "@/lib/services/notification/list-notification-endpoints";
import {
  findDeliverableEndpoint,
  signWebhook,
  verifyWebhook,
} from "@/lib/services/notification/notification-endpoint-signature";
import { rotateEndpointSecret } from "@/lib/services/notification/rotate-endpoint-secret";
import { saveNotificationEndpoint } from "@/lib/services/notification/save-notification-endpoint";
import { setEndpointDisabled } from "@/lib/services/notification/set-endpoint-disabled";
import { createUserSchema, resetPasswordSchema, savePriceSchema, setUserRolesSchema } from "@/lib/validation/admin";
import { parseInput } from "@/lib/validation/parse-input";
import { seedDemoCases } from "@/prisma/seed/demo-cases";
import { makeUser, producer, worker } from "./fixtures";
import { tableCounts } from "./helpers/table-counts";
import { openTestDb } from "./setup/test-db";

const { db } = openTestDb();
// Demo mode allows this machine's receivers (WEBHOOK_ALLOWED_HOSTS unset); production allows nothing extra.
const DEMO = { allow: webhookAllowListFromEnv({ demo: true }) };
const PRODUCTION = { allow: webhookAllowListFromEnv({ demo: false }) };

/** The console's actions wrap these services in one transaction, so do the tests. */
const issue = (actor: Principal, input: Parameters<typeof createAccessToken>[2]) =>
  inTransaction(db, (tx) => createAccessToken(tx, actor, input));
const revoke = (actor: Principal, tokenId: string) => inTransaction(db, (tx) => revokeAccessToken(tx, actor, tokenId));

/** A refusal from a service, or (given a function) from parsing its input the way an adapter does. */
async function refusal(promise: Promise<unknown> | (() => Promise<unknown>)): Promise<AppError> {
  const error = await (typeof promise === "function" ? Promise.resolve().then(promise) : promise).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

const auditKinds = async (client: PrismaClient) =>
  (await client.auditEvent.findMany({ orderBy: { id: "asc" }, select: { kind: true } })).map((e) => e.kind);

let admin: UserActor;
beforeAll(async () => {
  admin = await makeUser(db, ["admin"]);
});

describe("every admin service refuses non-admins", () => {
  const price: SavePriceInput = {
    provider: "replicate",
    model: "omni",
    unit: "per_generation",
    priceMicros: 100_000,
    currency: "USD",
  };
  const services: [
    string,
    (
      actor: Principal,
      ids: { userId: string; tokenId: string; endpointId: string; priceId: string },
    ) => Promise<unknown>,
  ][] = [
    ["listUsers", (a) => listUsers(db, a)],
    [
      "createUser",
      (a) => createUser(db, a, parseInput(createUserSchema, { email: "new@example.com", roles: ["operator"] })),
    ],
    [
      "setUserRoles",
      (a, ids) => setUserRoles(db, a, parseInput(setUserRolesSchema, { userId: ids.userId, roles: ["admin"] })),
    ],
    ["setUserActive", (a, ids) => setUserActive(db, a, { userId: ids.userId, active: false })],
    [
      "resetUserPassword",
      (a, ids) => resetUserPassword(db, a, parseInput(resetPasswordSchema, { userId: ids.userId })),
    ],
    ["listAccessTokens(api_key)", (a) => listAccessTokens(db, a, "api_key")],
    ["listAccessTokens(worker)", (a) => listAccessTokens(db, a, "worker")],
    ["createAccessToken(api_key)", (a) => issue(a, { kind: "api_key", name: "sneaky" })],
    ["createAccessToken(worker)", (a) => issue(a, { kind: "worker", name: "sneaky" })],
    ["revokeAccessToken(api_key)", (a, ids) => revoke(a, ids.tokenId)],
    ["listNotificationEndpoints", (a) => listNotificationEndpoints(db, a)],
    [
      "saveNotificationEndpoint",
      (a) => saveNotificationEndpoint(db, a, { producer: "guarded-app", url: "https://evil.example/x" }, DEMO),
    ],
    ["rotateEndpointSecret", (a, ids) => rotateEndpointSecret(db, a, { endpointId: ids.endpointId })],
    ["setEndpointDisabled", (a, ids) => setEndpointDisabled(db, a, { endpointId: ids.endpointId, disabled: true })],
    ["listProviderPrices", (a) => listProviderPrices(db, a)],
    ["saveProviderPrice", (a) => saveProviderPrice(db, a, { ...price, priceMicros: 1 })],
    ["deleteProviderPrice", (a, ids) => deleteProviderPrice(db, a, { priceId: ids.priceId })],
  ];

  const OWN_ENDPOINT_SERVICES = ["saveNotificationEndpoint", "rotateEndpointSecret", "setEndpointDisabled"];

  it("for operators, reviewers, finance, producers and workers, writing nothing", async () => {
    const target = await makeUser(db, ["operator"]);
    const key = await issue(admin, { kind: "api_key", name: "guarded-app" });
    const { endpoint } = await saveNotificationEndpoint(
      db,
      admin,
      { producer: "guarded-app", url: "https://guarded.example/hooks" },
      PRODUCTION,
    );
    const saved = await saveProviderPrice(db, admin, price);
    const ids = { userId: target.userId, tokenId: key.id, endpointId: endpoint.id, priceId: saved.id };
    const actors: Principal[] = [
      await makeUser(db, ["operator"]),
      await makeUser(db, ["reviewer"]),
      await makeUser(db, ["finance"]),
      await makeUser(db, ["operator", "reviewer", "finance"]),
      producer("guarded-app"),
      worker(),
    ];
    const before = await tableCounts(db);
    for (const actor of actors) {
      for (const [name, call] of services) {
        // A producer's key manages its own endpoint (tests/integration/notification-endpoint-api.test.ts).
        if (actor.kind === "api_key" && OWN_ENDPOINT_SERVICES.includes(name)) continue;
        const error = await refusal(call(actor, ids));
        expect(error.code, `${name} as ${JSON.stringify(actor)}`).toBe("forbidden");
      }
    }
    expect(await tableCounts(db)).toEqual(before);
  });
});

describe("users and roles", () => {
  it("creates a user with a generated password shown once, stored only as a hash, and audited", async () => {
    const { user, password } = await createUser(
      db,
      admin,
      parseInput(createUserSchema, {
        email: "  New.Person@Example.com ",
        name: "New Person",
        roles: ["reviewer", "finance", "reviewer"],
      }),
    );
    expect(user).toMatchObject({ email: "new.person@example.com", name: "New Person" });
    expect([...user.roles].sort()).toEqual(["finance", "reviewer"]);
    expect(password.length).toBeGreaterThanOrEqual(20);
    const stored = await db.user.findUniqueOrThrow({ where: { id: user.id } });
    expect(stored.passwordHash).toMatch(/^\$argon2id\$/);
    expect(await verifyPassword(stored.passwordHash ?? "", password)).toBe(true);
    const audit = await db.auditEvent.findFirstOrThrow({
      where: { kind: "user_created", actorId: admin.userId },
      select: { before: true, after: true, evidence: true },
    });
    expect(JSON.stringify(audit)).not.toContain(password);

    const duplicate = await refusal(
      createUser(db, admin, parseInput(createUserSchema, { email: "new.person@example.com", roles: ["operator"] })),
    );
    expect(duplicate.code).toBe("invalid_request");
    expect(duplicate.extra.issues?.[0]?.path).toBe("email");
    expect(
      (await refusal(() => createUser(db, admin, parseInput(createUserSchema, { email: "x@example.com", roles: [] }))))
        .code,
    ).toBe("invalid_request");
    expect(
      (
        await refusal(() =>
          createUser(db, admin, parseInput(createUserSchema, { email: "not-an-email", roles: ["admin"] })),
        )
      ).code,
    ).toBe("invalid_request");

    const reset = await resetUserPassword(db, admin, parseInput(resetPasswordSchema, { userId: user.id }));
    const after = await db.user.findUniqueOrThrow({ where: { id: user.id } });
    expect(await verifyPassword(after.passwordHash ?? "", reset.password)).toBe(true);
    expect(await verifyPassword(after.passwordHash ?? "", password)).toBe(false);
  });

  it("changes roles and deactivates and reactivates, each with an audit row", async () => {
    const target = await makeUser(db, ["operator"]);
    await setUserRoles(db, admin, parseInput(setUserRolesSchema, { userId: target.userId, roles: ["reviewer"] }));
    expect((await db.user.findUniqueOrThrow({ where: { id: target.userId } })).roles).toEqual(["reviewer"]);
    await setUserActive(db, admin, { userId: target.userId, active: false });
    expect((await db.user.findUniqueOrThrow({ where: { id: target.userId } })).active).toBe(false);
    await setUserActive(db, admin, { userId: target.userId, active: false });
    await setUserActive(db, admin, { userId: target.userId, active: true });
    const events = await db.auditEvent.findMany({
      where: { kind: { in: ["user_roles_changed", "user_deactivated", "user_reactivated"] } },
      orderBy: { id: "asc" },
    });
    const forTarget = events.filter((e) => JSON.stringify(e.after).includes(target.userId));
    expect(forTarget.map((e) => e.kind)).toEqual(["user_roles_changed", "user_deactivated", "user_reactivated"]);
    expect(forTarget[0]?.before).toMatchObject({ roles: ["operator"] });
  });

  it("an admin cannot deactivate themself or remove their own admin role, but can add roles", async () => {
    const self = await makeUser(db, ["admin"]);
    const before = await auditKinds(db);
    expect((await refusal(setUserActive(db, self, { userId: self.userId, active: false }))).code).toBe("forbidden");
    expect(
      (
        await refusal(
          setUserRoles(db, self, parseInput(setUserRolesSchema, { userId: self.userId, roles: ["operator"] })),
        )
      ).code,
    ).toBe("forbidden");
    const still = await db.user.findUniqueOrThrow({ where: { id: self.userId } });
    expect(still).toMatchObject({ active: true, roles: ["admin"] });
    expect(await auditKinds(db)).toEqual(before);
    await setUserRoles(db, self, parseInput(setUserRolesSchema, { userId: self.userId, roles: ["admin", "finance"] }));
    expect((await db.user.findUniqueOrThrow({ where: { id: self.userId } })).roles.sort()).toEqual([
      "admin",
      "finance",
    ]);
  });

  it("two admins demoting each other at once leave one admin, not none", async () => {
    const a = await makeUser(db, ["admin"]);
    const b = await makeUser(db, ["admin"]);
    // Only these two are admins in this race: demote everyone else first.
    for (const other of await db.user.findMany({ where: { roles: { has: "admin" } } })) {
      if (other.id !== a.userId && other.id !== b.userId) {
        await db.user.update({ where: { id: other.id }, data: { roles: ["operator"] } });
      }
    }
    const results = await Promise.allSettled([
      setUserRoles(db, a, parseInput(setUserRolesSchema, { userId: b.userId, roles: ["operator"] })),
      setUserRoles(db, b, parseInput(setUserRolesSchema, { userId: a.userId, roles: ["operator"] })),
    ]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const rejected = results.find((r) => r.status === "rejected");
    expect((rejected as PromiseRejectedResult).reason).toMatchObject({ code: "forbidden" });
    const admins = await db.user.findMany({ where: { active: true, roles: { has: "admin" } } });
    expect(admins).toHaveLength(1);
    await db.user.update({ where: { id: admin.userId }, data: { roles: ["admin"] } });
  });

  it("a deactivated user's personal token stops authenticating", async () => {
    const user = await makeUser(db, ["reviewer"]);
    const token = await issue(user, { kind: "personal", name: "laptop" });
    expect(await authenticateToken(db, token.secret)).toMatchObject({ kind: "user", userId: user.userId });
    await setUserActive(db, admin, { userId: user.userId, active: false });
    expect(await authenticateToken(db, token.secret)).toBeNull();
  });
});

describe("API keys and worker tokens", () => {
  it("a created key authenticates as its producer; once revoked it does not", async () => {
    const key = await issue(admin, { kind: "api_key", name: "render-farm" });
    expect(key.secret).toMatch(/^vrk_/);
    expect(await authenticateToken(db, key.secret)).toEqual({ kind: "api_key", apiKeyId: key.id, name: "render-farm" });
    const listed = await listAccessTokens(db, admin, "api_key");
    const row = listed.find((t) => t.id === key.id);
    expect(row).toMatchObject({ name: "render-farm", prefix: key.secret.slice(0, 12), revokedAt: null });
    expect(row?.lastUsedAt).toBeInstanceOf(Date);
    expect(JSON.stringify(listed)).not.toContain(key.secret);

    await revoke(admin, key.id);
    expect(await authenticateToken(db, key.secret)).toBeNull();
    expect((await listAccessTokens(db, admin, "api_key")).find((t) => t.id === key.id)?.revokedAt).toBeInstanceOf(Date);
    const kinds = await auditKinds(db);
    expect(kinds).toContain("token_created");
    expect(kinds).toContain("token_revoked");
  });

  it("a created worker token authenticates as a worker; once revoked it does not", async () => {
    const token = await issue(admin, { kind: "worker", name: "w-admin" });
    expect(await authenticateToken(db, token.secret)).toMatchObject({ kind: "worker", tokenId: token.id });
    await revoke(admin, token.id);
    expect(await authenticateToken(db, token.secret)).toBeNull();
  });
});

describe("personal access tokens", () => {
  it("act as their user with that user's roles; another user (even an admin) cannot revoke them", async () => {
    const owner = await makeUser(db, ["reviewer", "finance"]);
    const other = await makeUser(db, ["reviewer"]);
    const token = await issue(owner, { kind: "personal", name: "scripts" });
    expect(token.secret).toMatch(/^vrp_/);
    expect(await authenticateToken(db, token.secret)).toEqual({
      kind: "user",
      userId: owner.userId,
      email: owner.email,
      name: owner.name,
      roles: owner.roles,
      producers: null,
    });
    expect((await listAccessTokens(db, owner, "personal")).map((t) => t.id)).toEqual([token.id]);
    expect(await listAccessTokens(db, other, "personal")).toEqual([]);

    for (const intruder of [other, admin]) {
      expect((await refusal(revoke(intruder, token.id))).code).toBe("forbidden");
    }
    expect(await authenticateToken(db, token.secret)).not.toBeNull();
    await revoke(owner, token.id);
    expect(await authenticateToken(db, token.secret)).toBeNull();
  });

  it("stop working after their expiry", async () => {
    const owner = await makeUser(db, ["operator"]);
    const token = await issue(owner, { kind: "personal", name: "short", expiresAt: new Date(Date.now() - 1000) });
    expect(await authenticateToken(db, token.secret)).toBeNull();
  });
});

describe("notification endpoints", () => {
  beforeAll(async () => {
    await issue(admin, { kind: "api_key", name: "hook-app" });
    await issue(admin, { kind: "api_key", name: "local-app" });
  });

  const cases: [string, string, boolean, boolean][] = [
    // url, allowed in demo mode, allowed in production
    ["https", "https://hooks.example.com/video-recovery?x=1", true, true],
    ["plain http elsewhere", "http://hooks.example.com/hook", false, false],
    ["http://localhost", "http://localhost:8080/hook", true, false],
    ["http://127.0.0.1", "http://127.0.0.1:9000/hook", true, false],
    ["http to a lookalike host", "http://localhost.evil.example/hook", false, false],
    ["credentials in the URL", "https://user:pass@hooks.example.com/", false, false],
    ["a fragment", "https://hooks.example.com/#x", false, false],
    ["ftp", "ftp://hooks.example.com/", false, false],
    ["javascript", "javascript:alert(1)", false, false],
    ["not a URL", "hooks.example.com/hook", false, false],
    ["empty", "", false, false],
    ["too long", `https://hooks.example.com/${"a".repeat(2100)}`, false, false],
    // Addresses a webhook must never reach, whatever the scheme (demo mode allows only this machine).
    ["the cloud metadata address", "https://169.254.169.254/latest/meta-data/", false, false],
    ["a metadata host name", "https://metadata.google.internal/computeMetadata/v1/", false, false],
    ["a private address", "https://10.0.0.5/hook", false, false],
    ["a carrier-grade NAT address", "https://100.64.0.1/hook", false, false],
    ["an IPv6 unique-local address", "https://[fd00:ec2::254]/hook", false, false],
    ["an IPv6 link-local address", "https://[fe80::1]/hook", false, false],
    ["an IPv4-mapped loopback", "https://[::ffff:127.0.0.1]/hook", false, false],
    ["a NAT64 address carrying a private one", "https://[64:ff9b::a00:1]/hook", false, false],
    ["loopback written as one decimal number", "https://2130706433/hook", true, false],
    ["loopback written in hex", "http://0x7f.1/hook", true, false],
    ["https to localhost", "https://localhost/hook", true, false],
  ];
  it.each(cases)("validates the URL: %s", async (_name, url, demo, production) => {
    for (const [options, allowed] of [
      [DEMO, demo],
      [PRODUCTION, production],
    ] as const) {
      const result = saveNotificationEndpoint(db, admin, { producer: "local-app", url }, options);
      if (allowed) {
        await expect(result).resolves.toMatchObject({ endpoint: { url } });
      } else {
        const error = await refusal(result);
        expect(error.code).toBe("invalid_request");
        expect(error.extra.issues?.[0]?.path).toBe("url");
      }
    }
  });

  it("allows private addresses and plain http exactly for the hosts and ranges on the allow-list", async () => {
    const options = { allow: parseWebhookAllowList("hooks.partner.test, 10.20.0.0/16") };
    for (const url of ["http://hooks.partner.test/x", "https://10.20.1.2/x", "http://10.20.1.2:8080/x"]) {
      await expect(saveNotificationEndpoint(db, admin, { producer: "local-app", url }, options)).resolves.toMatchObject(
        { endpoint: { url } },
      );
    }
    for (const url of ["http://other.partner.test/x", "https://10.21.0.1/x", "http://localhost/x"]) {
      const error = await refusal(saveNotificationEndpoint(db, admin, { producer: "local-app", url }, options));
      expect(error.extra.issues?.[0]).toMatchObject({ path: "url" });
    }
    const metadata = await refusal(
      saveNotificationEndpoint(db, admin, { producer: "local-app", url: "https://169.254.169.254/" }, PRODUCTION),
    );
    expect(metadata.extra.issues?.[0]?.message).toMatch(/metadata/);
  });

  it("issues a whsec_ secret once, never lists it, keeps it usable for signing, and can rotate it", async () => {
    const created = await saveNotificationEndpoint(
      db,
      admin,
      { producer: "hook-app", url: "https://hooks.example.com/a" },
      PRODUCTION,
    );
    const secret = created.signingSecret ?? "";
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), "base64")).toHaveLength(32);
    expect(JSON.stringify(created.endpoint)).not.toContain(secret);
    const listed = await listNotificationEndpoints(db, admin);
    expect(listed.find((e) => e.producer === "hook-app")).toMatchObject({ url: "https://hooks.example.com/a" });
    expect(JSON.stringify(listed)).not.toMatch(/whsec_/);

    const changed = await saveNotificationEndpoint(
      db,
      admin,
      { producer: "hook-app", url: "https://hooks.example.com/b" },
      PRODUCTION,
    );
    expect(changed.signingSecret).toBeNull();
    const deliverable = await findDeliverableEndpoint(db, "hook-app");
    expect(deliverable).toMatchObject({ url: "https://hooks.example.com/b", signingSecret: secret });
    const message = { id: "msg_1", timestamp: 1_764_000_000, body: '{"type":"case.resolved"}' };
    const signature = signWebhook(deliverable?.signingSecret ?? "", message);
    expect(verifyWebhook(secret, message, signature)).toBe(true);
    expect(verifyWebhook(secret, { ...message, body: "{}" }, signature)).toBe(false);

    const rotated = await rotateEndpointSecret(db, admin, { endpointId: created.endpoint.id });
    expect(rotated.signingSecret).not.toBe(secret);
    expect(verifyWebhook(rotated.signingSecret, message, signature)).toBe(false);

    await setEndpointDisabled(db, admin, { endpointId: created.endpoint.id, disabled: true });
    expect(await findDeliverableEndpoint(db, "hook-app")).toBeNull();
    await setEndpointDisabled(db, admin, { endpointId: created.endpoint.id, disabled: false });
    expect(await findDeliverableEndpoint(db, "hook-app")).not.toBeNull();

    const audit = await db.auditEvent.findMany({
      where: { kind: { startsWith: "endpoint_" } },
      select: { kind: true, before: true, after: true, evidence: true },
    });
    expect(audit.map((e) => e.kind)).toEqual(
      expect.arrayContaining(["endpoint_created", "endpoint_updated", "endpoint_secret_rotated", "endpoint_disabled"]),
    );
    expect(JSON.stringify(audit)).not.toMatch(/whsec_/);
  });

  it("refuses a producer that was never issued an API key", async () => {
    const error = await refusal(
      saveNotificationEndpoint(db, admin, { producer: "ghost-app", url: "https://x.example/" }, PRODUCTION),
    );
    expect(error.extra.issues?.[0]?.path).toBe("producer");
  });
});

describe("provider prices", () => {
  const base: SavePriceInput = {
    provider: "fal",
    model: "kling-2.1",
    unit: "per_second",
    priceMicros: 22_000,
    currency: "USD",
  };

  // The form's price as typed; the action parses it (savePriceSchema) before the service is called.
  const form = { provider: base.provider, model: "refused", unit: base.unit, currency: base.currency };
  it.each([
    ["a fraction of a micro-unit", "0.0000015"],
    ["a negative amount", "-0.0001"],
    ["zero", "0"],
    ["not a number", "NaN"],
    ["beyond a safe integer", "9007199254.740993"],
  ])("refuses %s, writing nothing", async (_name, price) => {
    const before = await tableCounts(db);
    const error = await refusal(() => saveProviderPrice(db, admin, parseInput(savePriceSchema, { ...form, price })));
    expect(error.code).toBe("invalid_request");
    expect(error.extra.issues?.map((i) => i.path)).toEqual(["price"]);
    expect(await tableCounts(db)).toEqual(before);
  });

  it("refuses a bad currency, unit or name", async () => {
    for (const bad of [{ currency: "usd" }, { unit: "per_minute" }, { provider: "" }, { model: "with space" }]) {
      const typed = { ...form, model: "kling-2.1", price: "0.022", ...bad };
      expect((await refusal(() => saveProviderPrice(db, admin, parseInput(savePriceSchema, typed)))).code).toBe(
        "invalid_request",
      );
    }
  });

  it("the database refuses a non-positive price too", async () => {
    await expect(
      db.$executeRaw`INSERT INTO provider_prices (provider, model, unit, price_micros, currency)
                     VALUES ('x', 'y', 'per_generation', -1, 'USD')`,
    ).rejects.toThrow();
  });

  it("is one row per provider and model, edited in place, and gives the duplicate cost", async () => {
    const first = await saveProviderPrice(db, admin, base);
    const second = await saveProviderPrice(db, admin, { ...base, priceMicros: 30_000 });
    expect(second.id).toBe(first.id);
    const rows = (await listProviderPrices(db, admin)).filter((p) => p.provider === "fal");
    expect(rows).toEqual([expect.objectContaining({ model: "kling-2.1", priceMicros: 30_000, unit: "per_second" })]);

    const reader = await makeUser(db, ["operator"]);
    const found = await lookupProviderPrice(db, reader, { provider: "fal", model: "kling-2.1" });
    expect(found?.price).toEqual({ unit: "second", priceMicrosPerSecond: 30_000 });
    expect(duplicateCost(found?.price ?? { unit: "generation", priceMicros: 0 }, 1, 10)).toBe(300_000);
    expect(await lookupProviderPrice(db, reader, { provider: "fal", model: "unknown" })).toBeNull();

    await deleteProviderPrice(db, admin, { priceId: first.id });
    expect(await lookupProviderPrice(db, reader, { provider: "fal", model: "kling-2.1" })).toBeNull();
    expect((await refusal(deleteProviderPrice(db, admin, { priceId: first.id }))).code).toBe("not_found");
    const kinds = await auditKinds(db);
    expect(kinds).toEqual(expect.arrayContaining(["price_created", "price_updated", "price_deleted"]));
  });
});

describe("the demo producer key", () => {
  it("is named for admins once the demo seed parked its cases, and it is not a stored key", async () => {
    expect((await refusal(findDemoProducerKey(db, await makeUser(db, ["operator"])))).code).toBe("forbidden");
    expect(await findDemoProducerKey(db, admin)).toBeNull();

    expect(await seedDemoCases(db, 2)).toBe(true);
    const found = await findDemoProducerKey(db, admin);
    expect(found).toMatchObject({ name: DEMO_PRODUCER.name, keyId: DEMO_PRODUCER.apiKeyId });
    expect(found?.seededAt).toBeInstanceOf(Date);
    // The seeded cases name it, yet no key row (so no secret) exists for it.
    const producers = await db.operation.findMany({ select: { producer: true }, distinct: ["producer"] });
    expect(producers.map((row) => row.producer)).toContain(DEMO_PRODUCER.name);
    expect(await db.accessToken.count({ where: { id: DEMO_PRODUCER.apiKeyId } })).toBe(0);
    const keys = await listAccessTokens(db, admin, "api_key");
    expect(keys.map((key) => key.name)).not.toContain(DEMO_PRODUCER.name);
  });
});
