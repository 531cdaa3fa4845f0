import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parkOverduePermits } from "@/lib/services/permit/park-overdue-permits";
import {
  CreateTimeout,
  createRecoveryClient,
  type ProviderName,
  ProviderRejected,
  RecoveryApiError,
  type RecoveryClient,
  requestFingerprint,
} from "@/sdk/src";
import { worker } from "./fixtures";
import { startProducerApp } from "./helpers/producer-app";
import { tableCounts } from "./helpers/table-counts";
import { openOwnerDb, openTestDb } from "./setup/test-db";

// The producer SDK against the running app's own HTTP entry (real HTTP, real database): the safe
// path is the easy one, and a crash anywhere around the paid create never leads to a second one.
process.env.AUTH_SECRET ??= "sdk-test-secret-0123456789abcdef0123456789";
const { db } = openTestDb();
const { db: owner } = openOwnerDb();
let app: Awaited<ReturnType<typeof startProducerApp>>;
let recovery: RecoveryClient;

beforeAll(async () => {
  app = await startProducerApp(db, "sdk-shop");
  recovery = createRecoveryClient({ baseUrl: app.url, apiKey: app.apiKey });
});
afterAll(() => app.close());

let n = 0;
function send(provider: ProviderName = "replicate") {
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
    const order = { ...send("luma"), model: "ray-2" };
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

  it("a refusal thrown by the package's other build (ESM beside CommonJS) is still a definite refusal", async () => {
    // Two copies of the SDK mean two ProviderRejected classes; the name is what they share.
    class OtherCopyRejected extends Error {
      override name = "ProviderRejected";
    }
    const order = send();
    const result = await recovery.submit(order, async () => {
      throw new OtherCopyRejected("422: refused");
    });
    expect(result).toMatchObject({ sent: true, outcome: "rejected", reported: true });
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

describe("recovery.submit past its create timeout", () => {
  it("aborts the create's signal, reports unknown, and attaches the job that answers late to the parked case", async () => {
    const order = send();
    const seen: { aborted: boolean; reason: unknown }[] = [];
    const result = await recovery.submit(
      order,
      ({ signal }) =>
        // A provider that answers only once the caller gave up: the job exists all the same.
        new Promise((resolve) => {
          signal.addEventListener("abort", () => {
            seen.push({ aborted: signal.aborted, reason: signal.reason });
            setImmediate(() => resolve({ providerJobId: `late-${order.operationId}` }));
          });
        }),
      { createTimeoutMs: 50 },
    );
    expect(result).toMatchObject({ sent: true, outcome: "unknown", reported: true });
    if (!result.sent || result.outcome !== "unknown") throw new Error("expected an unknown send");
    expect(result.error).toBeInstanceOf(CreateTimeout);
    expect(seen).toEqual([{ aborted: true, reason: result.error }]);
    const parked = await db.case.findFirstOrThrow({ where: { operationId: order.operationId } });
    expect(parked).toMatchObject({ stage: "submission_uncertain", state: "parked" });

    expect(await result.lateReport).toEqual({
      outcome: "accepted",
      providerJobId: `late-${order.operationId}`,
      reported: true,
    });
    const attached = await db.case.findUniqueOrThrow({ where: { id: parked.id } });
    expect(attached).toMatchObject({ stage: "polling", providerJobId: `late-${order.operationId}` });
    expect(await recovery.lookup(order.operationId)).toMatchObject({
      caseId: parked.id,
      stage: "polling",
      permit: { status: "uncertain", providerJobId: `late-${order.operationId}` },
    });
  });

  it("a create that fails after its timeout leaves the send parked as unknown, with nothing more reported", async () => {
    const order = send();
    const result = await recovery.submit(
      order,
      ({ signal }) => new Promise((_resolve, reject) => signal.addEventListener("abort", () => reject(signal.reason))),
      { createTimeoutMs: 50 },
    );
    if (!result.sent || result.outcome !== "unknown" || !result.lateReport) throw new Error("expected a timeout");
    expect(await result.lateReport).toEqual({ outcome: "error", error: result.error });
    const permit = await db.sendPermit.findFirstOrThrow({ where: { operation: { operationId: order.operationId } } });
    expect(permit).toMatchObject({ status: "uncertain", providerJobId: null });
  });

  it("a create that resolves without a job ID is unknown and parked, not accepted", async () => {
    const order = send();
    const result = await recovery.submit(order, async () => ({}) as { providerJobId: string });
    expect(result).toMatchObject({ sent: true, outcome: "unknown", reported: true, lateReport: null });
    const parked = await db.case.findFirstOrThrow({ where: { operationId: order.operationId } });
    expect(parked).toMatchObject({ stage: "submission_uncertain", state: "parked" });
  });

  it("a create that throws at once is unknown with no late report to wait for", async () => {
    const order = send();
    const result = await recovery.submit(order, () => {
      throw new Error("socket hang up");
    });
    expect(result).toMatchObject({ sent: true, outcome: "unknown", reported: true, lateReport: null });
  });
});

describe("recovery errors and lookups", () => {
  it.each([
    ["Replicate", "permit"],
    ["fal-ai", "permit"],
    ["Replicate", "park"],
    ["fal-ai", "park"],
  ] as const)(
    "refuses the provider %s at the %s with 400, the allowed names, and nothing written",
    async (name, door) => {
      const order = { ...send(), provider: name as ProviderName };
      const before = await tableCounts(owner);
      const call =
        door === "permit"
          ? recovery.permit(order)
          : recovery.park({
              operationId: order.operationId,
              attemptId: order.attemptId,
              stage: "submission_uncertain",
              provider: order.provider,
              model: order.model,
              requestFingerprint: order.requestFingerprint,
              evidence: { summary: "the create timed out", observedAt: new Date().toISOString() },
              hold: order.hold,
            });
      const error = await call.then(
        () => null,
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(RecoveryApiError);
      const refused = error as RecoveryApiError;
      expect(refused).toMatchObject({ status: 400, code: "invalid_request" });
      expect(refused.issues).toEqual([
        { path: "provider", message: 'must be one of "replicate", "fal", "runway", "veo", "luma", spelt exactly' },
      ]);
      // The one-line message carries the server's explanation and the field it is about.
      expect(refused.message).toBe(
        '400 invalid_request: The request does not match the schema. (provider: must be one of "replicate", "fal", "runway", "veo", "luma", spelt exactly)',
      );
      expect(await tableCounts(owner)).toEqual(before);
    },
  );

  it("a 409 carries the server's code and explanation", async () => {
    const order = send();
    await recovery.permit(order);
    const error = await recovery.permit({ ...order, hold: { ...order.hold, amountMicros: 900_000 } }).catch((e) => e);
    expect(error).toBeInstanceOf(RecoveryApiError);
    expect(error).toMatchObject({ status: 409, code: "conflicting_registration", issues: [], details: undefined });
    expect((error as RecoveryApiError).serverMessage.length).toBeGreaterThan(0);
    expect((error as RecoveryApiError).message).toBe(`409 conflicting_registration: ${error.serverMessage}`);
  });

  it("looks up an operation that completed under its permit without ever becoming a case", async () => {
    const order = send();
    const result = await recovery.submit(order, async () => ({ providerJobId: `job-${order.operationId}` }));
    if (!result.sent) throw new Error("expected a send");
    await recovery.report(order.attemptId, {
      operationId: order.operationId,
      token: result.permit.token,
      outcome: "completed",
      providerJobId: `job-${order.operationId}`,
      evidence: { summary: "downloaded the video", observedAt: new Date().toISOString() },
    });
    const standing = await recovery.lookup(order.operationId);
    expect(standing).toEqual({
      operationId: order.operationId,
      caseId: null,
      permit: {
        attemptId: order.attemptId,
        token: 1,
        status: "completed",
        providerJobId: `job-${order.operationId}`,
        sendDeadline: result.permit.sendDeadline,
        reportedAt: expect.any(String),
      },
    });
  });

  it("looks up a refused send and one still in flight by their permits", async () => {
    const refused = send();
    await recovery.submit(refused, async () => {
      throw new ProviderRejected("422: refused");
    });
    expect(await recovery.lookup(refused.operationId)).toMatchObject({ caseId: null, permit: { status: "rejected" } });
    const live = send();
    await recovery.permit(live);
    expect(await recovery.lookup(live.operationId)).toMatchObject({
      caseId: null,
      permit: { status: "live", providerJobId: null, reportedAt: null },
    });
  });
});
