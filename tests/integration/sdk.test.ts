import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccessToken } from "@/lib/services/access/create-access-token";
import { parkOverduePermits } from "@/lib/services/permit/park-overdue-permits";
import { createRecoveryClient, ProviderRejected, type RecoveryClient, requestFingerprint } from "@/sdk/src";
import { serveDirect } from "@/server/serve-direct";
import { worker } from "./fixtures";
import { openOwnerDb, openTestDb } from "./setup/test-db";

// The producer SDK against the running app's own HTTP entry (real HTTP, real database): the safe
// path is the easy one, and a crash anywhere around the paid create never leads to a second one.
process.env.AUTH_SECRET ??= "sdk-test-secret-0123456789abcdef0123456789";
const { db } = openTestDb();
const { db: owner } = openOwnerDb();
let server: Server;
let recovery: RecoveryClient;

beforeAll(async () => {
  const key = await createAccessToken(db, "cli", { kind: "api_key", name: "sdk-shop" });
  server = createServer((req, res) => {
    if (serveDirect(req, res)) return;
    res.statusCode = 404;
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  recovery = createRecoveryClient({
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    apiKey: key.secret,
  });
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

let n = 0;
function send(provider: "replicate" | "fal" | "runway" = "replicate") {
  const operationId = `sdk-order-${Date.now()}-${n++}`;
  const request = { prompt: "a lighthouse at dusk", duration: 5 };
  return {
    operationId,
    attemptId: `${operationId}-a1`,
    requestFingerprint: requestFingerprint(request),
    provider,
    model: "minimax/video-01",
    hold: { holdId: `hold-${operationId}`, amountMicros: 500_000, currency: "USD" },
  };
}

describe("recovery.submit", () => {
  it("asks, creates once with the webhook URL, reports the job; asking again never creates again", async () => {
    const order = send();
    const urls: (string | undefined)[] = [];
    const result = await recovery.submit(order, async ({ webhookUrl }) => {
      urls.push(webhookUrl);
      return { providerJobId: `job-${order.operationId}` };
    });
    expect(result).toMatchObject({ sent: true, outcome: "accepted", reported: true });
    expect(urls).toHaveLength(1);
    expect(urls[0]).toMatch(/\/api\/v1\/provider-webhooks\/replicate\?ref=/);
    const again = await recovery.submit(order, async () => {
      throw new Error("must not be called");
    });
    expect(again).toMatchObject({
      sent: false,
      answer: { status: "in_flight", providerJobId: `job-${order.operationId}` },
    });
    // The sent result's permit reports the end of a job the producer polls itself.
    if (!result.sent) throw new Error("expected a send");
    const done = await recovery.report(order.attemptId, {
      operationId: order.operationId,
      token: result.permit.token,
      outcome: "completed",
      providerJobId: `job-${order.operationId}`,
      evidence: { summary: "downloaded the video", observedAt: new Date().toISOString() },
    });
    expect(done).toMatchObject({ status: "completed", changed: true });
  });

  it("gives a Runway create no webhook URL: Runway signs no callbacks", async () => {
    const order = { ...send("runway"), model: "gen4_turbo" };
    const urls: (string | undefined)[] = [];
    const result = await recovery.submit(order, async ({ webhookUrl }) => {
      urls.push(webhookUrl);
      return { providerJobId: "d2e3d1f4-1b3c-4b5c-8d46-1c1d7ee86892" };
    });
    expect(result).toMatchObject({ sent: true, outcome: "accepted", reported: true });
    expect(urls).toEqual([undefined]);
  });

  it("gives a Luma create no webhook URL: Luma's callbacks are unsigned", async () => {
    const order = { ...send(), provider: "luma", model: "ray-2" };
    const urls: (string | undefined)[] = [];
    const result = await recovery.submit(order, async ({ webhookUrl }) => {
      urls.push(webhookUrl);
      return { providerJobId: "7c1c7c6e-3a53-4c8e-9f0b-2b0f3c1d9e41" };
    });
    expect(result).toMatchObject({ sent: true, outcome: "accepted", reported: true });
    expect(urls).toEqual([undefined]);
  });

  it("20 concurrent submits of one operation call the create once", async () => {
    const order = send("fal");
    let creates = 0;
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        recovery.submit(order, async () => {
          creates += 1;
          return { providerJobId: `fal-${order.operationId}` };
        }),
      ),
    );
    expect(creates).toBe(1);
    expect(results.filter((r) => r.sent)).toHaveLength(1);
  });

  it("a timeout after sending is reported unknown and parks the case; nothing is resent", async () => {
    const order = send();
    const result = await recovery.submit(order, () => new Promise(() => {}), { createTimeoutMs: 50 });
    expect(result).toMatchObject({ sent: true, outcome: "unknown", reported: true });
    const kase = await db.case.findFirstOrThrow({ where: { operationId: order.operationId } });
    expect(kase).toMatchObject({ stage: "submission_uncertain", state: "parked" });
    const retry = await recovery.submit(order, async () => {
      throw new Error("must not be called");
    });
    expect(retry).toMatchObject({ sent: false, answer: { status: "uncertain", caseId: kase.id } });
  });

  it("a definite refusal closes the attempt with its hold waiting for finance", async () => {
    const order = send();
    const result = await recovery.submit(order, async () => {
      throw new ProviderRejected("422: the prompt was refused before any job was created");
    });
    expect(result).toMatchObject({ sent: true, outcome: "rejected", reported: true });
    const permit = await db.sendPermit.findFirstOrThrow({ where: { operation: { operationId: order.operationId } } });
    expect(permit.status).toBe("rejected");
  });

  it("a producer that crashes after sending, before reporting, loses nothing: the deadline parks it", async () => {
    const order = send();
    const answer = await recovery.permit({ ...order, sendWithinSeconds: 60 });
    expect(answer).toMatchObject({ status: "permitted", created: true });
    // ...the create is sent, and the process dies. On restart it asks again: same permit, not its own.
    const restarted = await recovery.submit(order, async () => {
      throw new Error("must not be called");
    });
    expect(restarted).toMatchObject({ sent: false, answer: { status: "permitted", created: false } });
    await owner.sendPermit.updateMany({
      where: { operation: { operationId: order.operationId } },
      data: { sendDeadline: new Date(Date.now() - 1000) },
    });
    await parkOverduePermits(db, worker());
    expect(await recovery.submit(order, async () => ({ providerJobId: "never" }))).toMatchObject({
      sent: false,
      answer: { status: "uncertain" },
    });
  });

  it("parks and looks up without a permit too, with typed errors", async () => {
    const order = send();
    const parked = await recovery.park({
      operationId: order.operationId,
      attemptId: order.attemptId,
      stage: "polling",
      provider: order.provider,
      model: order.model,
      providerJobId: `job-${order.operationId}`,
      requestFingerprint: order.requestFingerprint,
      evidence: { summary: "status checks kept timing out", observedAt: new Date().toISOString() },
      hold: order.hold,
    });
    expect(parked).toMatchObject({ created: true, stage: "polling" });
    expect(await recovery.lookup(order.operationId)).toMatchObject({ stage: "polling" });
    await expect(recovery.lookup("no-such-operation")).rejects.toMatchObject({ status: 404, code: "not_found" });
    expect(await recovery.replacements()).toMatchObject({ items: expect.any(Array) });
  });
});
