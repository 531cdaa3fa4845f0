import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { API_ROUTES, type RouteKey, routeKey } from "@/lib/api/routes";
import { parseWebhookAllowList } from "@/lib/notify/webhook-allow-list";
import { createAccessToken } from "@/lib/services/access/create-access-token";
import { findDeliverableEndpoint } from "@/lib/services/notification/notification-endpoint-signature";
import { saveNotificationEndpoint } from "@/lib/services/notification/save-notification-endpoint";
import { TEST_SENDS_PER_MINUTE } from "@/lib/services/notification/send-test-notification";
import { setEndpointDisabled } from "@/lib/services/notification/set-endpoint-disabled";
import { createRecoveryClient, RecoveryApiError, type RecoveryClient, verifyNotification } from "@/sdk/src";
import { fromNodeRequest, sendReply } from "@/server/node-bridge";
import { createRouteMatcher } from "@/server/route-matcher";
import { makeUser } from "./fixtures";
import { callRoute } from "./helpers/call-route";
import { tableCounts } from "./helpers/table-counts";
import { startWebhookReceiver, type WebhookReceiver } from "./helpers/webhook-receiver";
import { openTestDb } from "./setup/test-db";

// A producer manages its own notification endpoint through the API and the SDK, over the app's own
// HTTP entry (real HTTP, real database), and the test notification reaches a real receiver signed
// with the endpoint's current secret. The allow-list holds only the receiver's address, as a
// production deployment would list its own test receiver: every other private or local address,
// and plain http anywhere else, is refused as in production.
vi.hoisted(() => {
  process.env.AUTH_SECRET ??= "notification-endpoint-test-secret-0123456789";
  process.env.WEBHOOK_ALLOWED_HOSTS = "127.0.0.1";
});

const { db } = openTestDb();
let server: Server;
let baseUrl = "";
let receiver: WebhookReceiver;
/** What the receiver answers next; 200 unless a test says otherwise. */
let answerWith = 200;

async function producer(name: string): Promise<{ client: RecoveryClient; key: string }> {
  const key = await createAccessToken(db, "cli", { kind: "api_key", name });
  return { client: createRecoveryClient({ baseUrl, apiKey: key.secret }), key: key.secret };
}

const handlerOf = (route: RouteKey) => {
  const found = API_ROUTES.find((entry) => routeKey(entry) === route);
  if (!found) throw new Error(`${route} is not in the route table`);
  return found.handle;
};

/** The RecoveryApiError a call ends with (the test fails if it succeeds). */
async function refusal(work: Promise<unknown>): Promise<RecoveryApiError> {
  const error = await work.then(
    () => null,
    (cause: unknown) => cause,
  );
  if (!(error instanceof RecoveryApiError)) throw new Error(`expected a RecoveryApiError, got ${String(error)}`);
  return error;
}

beforeAll(async () => {
  // Next.js serves these routes in the app; here their handlers are served the way the HTTP entry
  // serves its direct routes (the same `serve` of the same table entries), over real HTTP.
  const producerRoute = createRouteMatcher(API_ROUTES.filter((route) => route.audience === "producer"));
  server = createServer((req, res) => {
    const match = producerRoute(req.method, req.url);
    if (!match) {
      res.statusCode = 404;
      res.end();
      return;
    }
    void match.route.serve(fromNodeRequest(req), match.params).then((reply) => sendReply(res, reply, []));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  receiver = await startWebhookReceiver(null, () => answerWith);
});
afterAll(async () => {
  await receiver.stop();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe("a producer's notification endpoint", () => {
  it("registers, is tested, rotates, is tested with the new secret, and refuses a test while disabled", async () => {
    const { client: shop } = await producer("hook-shop");
    expect(await shop.notificationEndpoint.get()).toBeNull();

    const registered = await shop.notificationEndpoint.register(receiver.url);
    const first = registered.signingSecret;
    expect(first).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(registered.endpoint).toMatchObject({
      producer: "hook-shop",
      url: receiver.url,
      enabled: true,
      disabledAt: null,
      secretRotatedAt: null,
    });
    // Read back, the endpoint never carries its secret.
    const read = await callRoute(handlerOf("GET /api/v1/notification-endpoint"), {
      token: (await producer("hook-shop")).key,
    });
    expect(read.status).toBe(200);
    expect(JSON.stringify(read.json)).not.toContain(first);
    expect(Object.keys(read.json.endpoint as object).sort()).toEqual(
      ["createdAt", "disabledAt", "enabled", "id", "producer", "secretRotatedAt", "updatedAt", "url"].sort(),
    );
    // Saving the same URL again issues nothing.
    expect(await shop.notificationEndpoint.register(receiver.url)).toMatchObject({ signingSecret: null });

    const tested = await shop.notificationEndpoint.test();
    expect(tested).toMatchObject({ delivered: true, status: 200 });
    const firstTest = receiver.received.at(-1);
    expect(firstTest?.webhookId).toBe(tested.webhookId);
    expect(verifyNotification(first as string, firstTest?.body ?? "", firstTest?.signatureHeaders ?? {})).toMatchObject(
      { type: "endpoint.test", data: { producer: "hook-shop", endpointId: registered.endpoint.id } },
    );

    const rotated = await shop.notificationEndpoint.rotate();
    expect(rotated.signingSecret).toMatch(/^whsec_/);
    expect(rotated.signingSecret).not.toBe(first);
    expect(rotated.endpoint.secretRotatedAt).not.toBeNull();
    const retested = await shop.notificationEndpoint.test();
    expect(retested).toMatchObject({ delivered: true, status: 200 });
    const secondTest = receiver.received.at(-1);
    expect(secondTest?.webhookId).toBe(retested.webhookId);
    const { body = "", signatureHeaders = {} } = secondTest ?? {};
    expect(verifyNotification(rotated.signingSecret, body, signatureHeaders)).toMatchObject({ type: "endpoint.test" });
    // No overlap: the old secret no longer verifies what is sent.
    expect(() => verifyNotification(first as string, body, signatureHeaders)).toThrow();

    expect(await shop.notificationEndpoint.disable()).toMatchObject({ enabled: false });
    const sent = receiver.received.length;
    const refused = await refusal(shop.notificationEndpoint.test());
    expect({ status: refused.status, code: refused.code }).toEqual({ status: 409, code: "endpoint_disabled" });
    expect(receiver.received).toHaveLength(sent);
    expect(await shop.notificationEndpoint.enable()).toMatchObject({ enabled: true });

    // Every change is audited as the console's are, naming the key.
    const audit = await db.auditEvent.findMany({
      where: { kind: { startsWith: "endpoint_" }, actorLabel: "api key hook-shop" },
      orderBy: { id: "asc" },
    });
    expect(audit.map((row) => [row.kind, row.actorKind])).toEqual([
      ["endpoint_created", "api_key"],
      ["endpoint_secret_rotated", "api_key"],
      ["endpoint_disabled", "api_key"],
      ["endpoint_enabled", "api_key"],
    ]);
    expect(JSON.stringify(audit.map((row) => [row.before, row.after]))).not.toContain("whsec_");
  });

  it("reports a receiver's refusal with its status, and a 410 does not disable the endpoint", async () => {
    const { client: shop } = await producer("gone-shop");
    await shop.notificationEndpoint.register(receiver.url);
    answerWith = 410;
    try {
      const result = await shop.notificationEndpoint.test();
      expect(result).toMatchObject({ delivered: false, status: 410, failure: "http_status" });
    } finally {
      answerWith = 200;
    }
    expect(await shop.notificationEndpoint.get()).toMatchObject({ enabled: true });
    expect(await db.notificationOutbox.count({ where: { producer: "gone-shop" } })).toBe(0);
  });

  it("checks the address again at send time and names no resolved address or internal error", async () => {
    const { client: shop } = await producer("moved-shop");
    const { endpoint } = await shop.notificationEndpoint.register(receiver.url);
    // A URL saved under other rules (or by hand): the send-time check is the one that counts.
    await db.notificationEndpoint.update({ where: { id: endpoint.id }, data: { url: "https://10.1.2.3/hooks" } });
    const sent = receiver.received.length;
    const refused = await shop.notificationEndpoint.test();
    expect(refused).toMatchObject({ delivered: false, status: null, failure: "address_refused" });
    expect(JSON.stringify(refused)).not.toContain("10.1.2.3");
    expect(receiver.received).toHaveLength(sent);

    // Nothing listens here: no answer, and no socket error text in the reply.
    const closed = await startWebhookReceiver(null);
    await closed.stop();
    await db.notificationEndpoint.update({ where: { id: endpoint.id }, data: { url: closed.url } });
    const unanswered = await shop.notificationEndpoint.test();
    expect(unanswered).toMatchObject({ delivered: false, status: null, failure: "no_answer" });
    expect(JSON.stringify(unanswered)).not.toMatch(/ECONNREFUSED|Error/);
  });

  it(`allows ${TEST_SENDS_PER_MINUTE} test sends a minute per producer, then answers 429`, async () => {
    const { client: shop } = await producer("busy-shop");
    await shop.notificationEndpoint.register(receiver.url);
    for (let i = 0; i < TEST_SENDS_PER_MINUTE; i += 1) {
      expect(await shop.notificationEndpoint.test()).toMatchObject({ delivered: true });
    }
    const sent = receiver.received.length;
    // Another key of the same producer shares the count.
    const { client: sameShop } = await producer("busy-shop");
    const limited = await refusal(sameShop.notificationEndpoint.test());
    expect({ status: limited.status, code: limited.code }).toEqual({ status: 429, code: "rate_limited" });
    expect(receiver.received).toHaveLength(sent);
  });

  it("another producer's key neither sees nor changes it", async () => {
    const { client: owner } = await producer("owner-shop");
    const { signingSecret } = await owner.notificationEndpoint.register(receiver.url);
    const { client: other } = await producer("other-shop");
    const before = await tableCounts(db);
    expect(await other.notificationEndpoint.get()).toBeNull();
    const calls = other.notificationEndpoint;
    for (const attempt of [calls.rotate, calls.disable, calls.enable, calls.test]) {
      const error = await refusal(attempt());
      expect({ status: error.status, code: error.code }).toEqual({ status: 404, code: "not_found" });
    }
    expect(await tableCounts(db)).toEqual(before);
    // The body cannot name a producer: the key's name is the producer.
    const named = await callRoute(handlerOf("PUT /api/v1/notification-endpoint"), {
      token: (await producer("other-shop")).key,
      method: "PUT",
      body: { url: "https://hooks.example.com/stolen", producer: "owner-shop" },
    });
    expect(named.status).toBe(400);
    // Registering its own endpoint leaves the owner's alone.
    await other.notificationEndpoint.register("https://hooks.example.com/other");
    expect(await findDeliverableEndpoint(db, "owner-shop")).toMatchObject({ url: receiver.url, signingSecret });
  });

  it.each([
    ["plain http", "http://hooks.example.com/recovery"],
    ["a loopback name", "https://localhost/hooks"],
    ["a loopback address off the allow-list", "https://127.0.0.2/hooks"],
    ["IPv6 loopback", "http://[::1]/hooks"],
    ["cloud metadata", "https://169.254.169.254/latest/meta-data"],
    ["a private address", "https://10.0.0.7/hooks"],
    ["a local network name", "https://hooks.internal/recovery"],
    ["credentials", "https://user:secret@hooks.example.com/recovery"],
    ["a fragment", "https://hooks.example.com/recovery#x"],
    ["a URL over 2048 characters", `https://hooks.example.com/${"a".repeat(2030)}`],
    ["a URL over the body's limit", `https://hooks.example.com/${"a".repeat(5000)}`],
    ["not a URL", "hooks.example.com"],
    ["an empty URL", ""],
  ])("refuses %s with 400 and changes nothing", async (_, url) => {
    const { key, client } = await producer("strict-shop");
    if (!(await client.notificationEndpoint.get())) {
      await client.notificationEndpoint.register("https://hooks.example.com/strict");
    }
    const before = await tableCounts(db);
    const stored = await db.notificationEndpoint.findUniqueOrThrow({ where: { producer: "strict-shop" } });
    const result = await callRoute(handlerOf("PUT /api/v1/notification-endpoint"), {
      token: key,
      method: "PUT",
      body: { url },
    });
    expect(result.status).toBe(400);
    expect(result.json.error).toMatchObject({
      code: "invalid_request",
      issues: expect.arrayContaining([expect.objectContaining({ path: "url" })]),
    });
    expect(await tableCounts(db)).toEqual(before);
    expect(await db.notificationEndpoint.findUniqueOrThrow({ where: { producer: "strict-shop" } })).toEqual(stored);
  });

  it("refuses a body that is not a URL object", async () => {
    const { key } = await producer("shapeless-shop");
    for (const body of [{}, { url: 42 }, ["https://hooks.example.com/"]]) {
      const before = await tableCounts(db);
      const result = await callRoute(handlerOf("PUT /api/v1/notification-endpoint"), {
        token: key,
        method: "PUT",
        body,
      });
      expect(result.status, JSON.stringify(body)).toBe(400);
      expect(await tableCounts(db)).toEqual(before);
    }
  });

  it("the console's admin form goes through the same services: a producer sees what an admin set", async () => {
    const admin = await makeUser(db, ["admin"]);
    const { client: shop } = await producer("console-shop");
    const allow = { allow: parseWebhookAllowList("") };
    const saved = await saveNotificationEndpoint(
      db,
      admin,
      { producer: "console-shop", url: "https://hooks.example.com/console" },
      allow,
    );
    expect(await shop.notificationEndpoint.get()).toMatchObject({ id: saved.endpoint.id, enabled: true });
    await setEndpointDisabled(db, admin, { endpointId: saved.endpoint.id, disabled: true });
    expect(await shop.notificationEndpoint.get()).toMatchObject({ enabled: false });
    // And what the producer rotates, the console lists as rotated.
    await shop.notificationEndpoint.rotate();
    const row = await db.notificationEndpoint.findUniqueOrThrow({ where: { producer: "console-shop" } });
    expect(row.secretRotatedAt).not.toBeNull();
  });
});
