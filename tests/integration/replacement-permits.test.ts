import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_ROUTES, routeKey } from "@/lib/api/routes";
import { requestFingerprint } from "@/lib/domain/fingerprint";
import { env } from "@/lib/env";
import { noJobSettlingSeconds } from "@/lib/services/admin/provider-settings";
import { escalateOverdueCases } from "@/lib/services/case/escalate-overdue-cases";
import { parkCase } from "@/lib/services/case/park-case";
import { parkOverduePermits } from "@/lib/services/permit/park-overdue-permits";
import { reportOutcome } from "@/lib/services/permit/report-outcome";
import { requestPermit } from "@/lib/services/permit/request-permit";
import { authorizeReplacement } from "@/lib/services/replacement/decide-replacement";
import { requestReplacement } from "@/lib/services/replacement/request-replacement";
import { createRecoveryClient, type RecoveryClient } from "@/sdk/src";
import { type RunningSimulator, startSimulator } from "@/verification/simulator";
import { fingerprint, makeUser, outcomeInput, parkInput, permitInput, producer, worker } from "./fixtures";
import { callRoute } from "./helpers/call-route";
import { startProducerApp } from "./helpers/producer-app";
import { openOwnerDb, openTestDb } from "./setup/test-db";

// Decision 036: a replacement the product authorised is a paid send like any other, so it goes out
// under a permit issued with the authorisation, through the SDK's one send path, and parks on the
// operation's case as a new episode when its answer is lost.
const REPLICATE_SECRET = `whsec_${randomBytes(24).toString("base64")}`;
process.env.REPLICATE_WEBHOOK_SECRET = REPLICATE_SECRET;
process.env.AUTH_SECRET ??= "replacement-permit-test-secret-0123456789abcdef";
process.env.WORKER_LOG = "0";

const { db } = openTestDb();
const { db: owner } = openOwnerDb();
const SHOP = "replacement-permit-shop";
const shop = producer(SHOP);
let app: Awaited<ReturnType<typeof startProducerApp>>;
let recovery: RecoveryClient;
let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startSimulator({ port: 0, timings: { queuedMs: 0, runningMs: 0, outputBytes: 16 * 1024 } });
  app = await startProducerApp(db, SHOP);
  recovery = createRecoveryClient({ baseUrl: app.url, apiKey: app.apiKey });
});
afterAll(async () => {
  await app.close();
  await sim.stop();
});

const replicateRoute = (() => {
  const route = API_ROUTES.find((r) => routeKey(r) === "POST /api/v1/provider-webhooks/replicate");
  if (!route) throw new Error("the replicate webhook route is not in the route table");
  return route.handle;
})();

let sequence = 0;
/** The provider's own signed webhook for `jobId`, posted to the URL the permit gave (its signed `ref`). */
async function replicateWebhook(jobId: string, ref: string) {
  const raw = JSON.stringify(await (await fetch(`${sim.url}/replicate/v1/predictions/${jobId}`)).json());
  const id = `msg_${Date.now()}_${sequence++}`;
  const at = new Date();
  return callRoute(replicateRoute, {
    rawBody: raw,
    method: "POST",
    query: { ref },
    headers: {
      "webhook-id": id,
      "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
      "webhook-signature": new Webhook(REPLICATE_SECRET).sign(id, at, raw),
    },
  });
}

/**
 * The request an operation asks for, and a way to seed a job the provider made for it: the
 * provider's copy carries that request and model, as its evidence must for a reference to count
 * (ownership by evidence, decision 038).
 */
function requestAndItsJob() {
  const request = { prompt: `replacement request ${sequence++}`, duration: 5 };
  const seed = (model: string) => sim.state.seedJob({ provider: "replicate", outcome: "stuck", model, input: request });
  return { requestFingerprint: requestFingerprint(request), seed };
}

/** A proven failure parked without a permit, and a replacement for it that finance authorised. */
async function authorisedReplacement() {
  const { requestFingerprint: asked, seed } = requestAndItsJob();
  const input = parkInput("generation_failed", { providerJobId: undefined, requestFingerprint: asked });
  const { caseId } = await parkCase(db, shop, input);
  const reviewer = await makeUser(db, ["reviewer"]);
  const { requestId } = await requestReplacement(db, reviewer, caseId, { evidence: "content filter" });
  const authorized = await authorizeReplacement(db, await makeUser(db, ["finance"]), requestId, { evidence: "ok" });
  return { input, caseId, requestId, authorized, seedJob: () => seed(input.model) };
}

/** An operation sent under its own permit whose generation failed, and a replacement authorised for it. */
async function permitBornReplacement() {
  const { requestFingerprint: asked, seed } = requestAndItsJob();
  const { operationId, input } = permitInput({ provider: "replicate", requestFingerprint: asked });
  await requestPermit(db, shop, operationId, input, env());
  const firstJob = `job-${operationId}-first`;
  const failed = await reportOutcome(db, shop, input.attemptId, outcomeInput(operationId, 1, "failed", firstJob));
  const caseId = failed.caseId ?? "";
  const reviewer = await makeUser(db, ["reviewer"]);
  const { requestId } = await requestReplacement(db, reviewer, caseId, { evidence: "the provider failed it" });
  const authorized = await authorizeReplacement(db, await makeUser(db, ["finance"]), requestId, { evidence: "ok" });
  return { operationId, input, firstJob, caseId, requestId, authorized, seedJob: () => seed(input.model) };
}

describe("a replacement's send permit", () => {
  it("is issued with the authorisation, listed with the replacement, sent once through the SDK, and settles", async () => {
    const { input, caseId, requestId, authorized } = await authorisedReplacement();
    expect(authorized.permit).toMatchObject({ token: 1 });
    const listed = await recovery.replacements();
    const item = listed.items.find((r) => r.id === requestId);
    expect(item).toMatchObject({
      attemptId: authorized.attemptId,
      permit: {
        operationId: input.operationId,
        attemptId: authorized.attemptId,
        token: 1,
        holdId: authorized.holdId,
        status: "live",
        sendDeadline: authorized.permit.sendDeadline,
      },
      webhook: { ref: expect.any(String), urls: { replicate: expect.stringContaining("ref=") } },
    });
    // Asking for the replacement attempt's permit with its facts gives that same permit, not `done`.
    const asked = await recovery.permit({
      operationId: input.operationId,
      attemptId: authorized.attemptId,
      requestFingerprint: input.requestFingerprint,
      provider: input.provider,
      model: input.model,
      hold: { holdId: authorized.holdId, amountMicros: 100_000, currency: "USD" },
    });
    expect(asked).toEqual({
      status: "permitted",
      created: false,
      permit: { ...item?.permit, status: undefined },
      webhook: item?.webhook,
    });

    // The replaced attempt itself is done, as it was before the replacement had a permit.
    const original = {
      operationId: input.operationId,
      attemptId: input.attemptId,
      requestFingerprint: input.requestFingerprint,
      provider: input.provider,
      model: input.model,
      hold: input.hold,
    };
    expect(await recovery.permit(original)).toMatchObject({ status: "done", caseId });

    const urls: (string | undefined)[] = [];
    const sent = await recovery.submitReplacement(requestId, async ({ webhookUrl }) => {
      urls.push(webhookUrl);
      return { providerJobId: `job-${authorized.attemptId}` };
    });
    expect(sent).toMatchObject({ sent: true, outcome: "accepted", reported: true, permit: { token: 1 } });
    expect(urls).toEqual([item?.webhook?.urls.replicate]);
    // Taken: neither a second call nor a restart sends it again.
    const again = await recovery.submitReplacement(requestId, async () => {
      throw new Error("must not be called");
    });
    expect(again).toMatchObject({ sent: false, reason: "not_authorized" });
    expect(await db.replacementRequest.findUniqueOrThrow({ where: { id: requestId } })).toMatchObject({
      acknowledgedAt: expect.any(Date),
    });

    const done = await recovery.report(authorized.attemptId, {
      operationId: input.operationId,
      token: 1,
      outcome: "completed",
      providerJobId: `job-${authorized.attemptId}`,
      evidence: { summary: "downloaded the video", observedAt: new Date().toISOString() },
    });
    expect(done).toMatchObject({ status: "completed", changed: true });
    const hold = await db.hold.findFirstOrThrow({ where: { holdId: authorized.holdId } });
    expect(hold).toMatchObject({ status: "settled", caseId });
    // The case of the replaced episode stays resolved: nothing parked for a send that went well; it
    // holds only the original's hold now, and its timeline says the replacement's was settled.
    expect(await db.case.findUniqueOrThrow({ where: { id: caseId } })).toMatchObject({
      state: "resolved",
      episode: 1,
      heldMicros: 100_000n,
    });
    expect(await db.auditEvent.count({ where: { caseId, kind: "hold_settled" } })).toBe(1);
  });

  it("of a permit-born operation follows its permits; a lost answer parks episode 2 with the hold kept, and the provider's webhook attaches the job", async () => {
    const { operationId, input, firstJob, caseId, requestId, authorized, seedJob } = await permitBornReplacement();
    expect(authorized.permit.token).toBe(2);
    // A report under the replaced permit's token is stale now.
    await expect(
      reportOutcome(db, shop, input.attemptId, outcomeInput(operationId, 1, "unknown")),
    ).rejects.toMatchObject({ code: "stale_fencing_token" });

    const item = (await recovery.replacements()).items.find((r) => r.id === requestId);
    // The later episode of a permit-born operation asks for its permit the same way: token 2.
    const asked = await requestPermit(
      db,
      shop,
      operationId,
      {
        ...input,
        attemptId: authorized.attemptId,
        hold: { holdId: authorized.holdId, amountMicros: 100_000, currency: "USD" },
      },
      env(),
    );
    expect(asked).toMatchObject({ status: "permitted", created: false, permit: { token: 2 } });
    const result = await recovery.submitReplacement(requestId, () => new Promise<{ providerJobId: string }>(() => {}), {
      createTimeoutMs: 50,
    });
    expect(result).toMatchObject({ sent: true, outcome: "unknown", reported: true });

    const row = await db.case.findUniqueOrThrow({ where: { id: caseId } });
    expect(row).toMatchObject({
      episode: 2,
      stage: "submission_uncertain",
      state: "parked",
      attemptId: authorized.attemptId,
      providerJobId: null,
    });
    const permit = await db.sendPermit.findFirstOrThrow({ where: { hold: { holdId: authorized.holdId } } });
    expect(permit).toMatchObject({ token: 2, status: "uncertain", caseRef: caseId });
    const settling = await noJobSettlingSeconds(db, "replicate");
    expect(row.retryDeadline?.toISOString()).toBe(
      new Date(permit.sendDeadline.getTime() + settling * 1000).toISOString(),
    );
    expect(await db.hold.findFirstOrThrow({ where: { holdId: authorized.holdId } })).toMatchObject({
      status: "held",
      caseId,
    });
    expect(
      (await db.auditEvent.findMany({ where: { caseId, episode: 2 }, orderBy: { id: "asc" } })).map((e) => e.kind),
    ).toEqual(["reopened"]);

    // Past its deadline, the sweep flags it; then the provider's signed webhook, carrying the
    // replacement's own reference, attaches the job: the episode is no longer overdue.
    await escalateOverdueCases(db, worker(), 200, new Date(permit.sendDeadline.getTime() + (settling + 1) * 1000));
    expect((await db.case.findUniqueOrThrow({ where: { id: caseId } })).escalatedAt).not.toBeNull();
    const job = seedJob();
    const answer = await replicateWebhook(job.id, item?.webhook?.ref ?? "");
    expect(answer.json).toMatchObject({ outcome: "attached", caseId });
    expect(await db.case.findUniqueOrThrow({ where: { id: caseId } })).toMatchObject({
      stage: "polling",
      providerJobId: job.id,
      escalatedAt: null,
    });
    expect(await db.sendPermit.findUniqueOrThrow({ where: { id: permit.id } })).toMatchObject({
      providerJobId: job.id,
    });
    // The replaced send keeps its own job.
    expect(
      await db.sendPermit.findFirstOrThrow({ where: { token: 1, attempt: { attemptId: input.attemptId } } }),
    ).toMatchObject({ providerJobId: firstJob });
  });

  it("is answered by the provider's signed webhook carrying its reference while its producer is silent", async () => {
    const { caseId, requestId, authorized, seedJob } = await authorisedReplacement();
    const item = (await recovery.replacements()).items.find((r) => r.id === requestId);
    // The producer sent it and died before reporting: the provider's webhook names the job.
    const job = seedJob();
    const answer = await replicateWebhook(job.id, item?.webhook?.ref ?? "");
    expect(answer.json).toMatchObject({ outcome: "permit_reported" });
    const permit = await db.sendPermit.findFirstOrThrow({ where: { hold: { holdId: authorized.holdId } } });
    expect(permit).toMatchObject({ status: "accepted", providerJobId: job.id, caseRef: null });
    expect(await db.attempt.findFirstOrThrow({ where: { attemptId: authorized.attemptId } })).toMatchObject({
      providerJobId: job.id,
    });
    // Accepted, so its deadline parks nothing as an uncertain submission.
    await owner.sendPermit.update({ where: { id: permit.id }, data: { sendDeadline: new Date(Date.now() - 1000) } });
    await parkOverduePermits(db, worker());
    expect(await db.case.findUniqueOrThrow({ where: { id: caseId } })).toMatchObject({ episode: 1, state: "resolved" });
  });

  it("parks at its deadline when nobody reports it, as a new episode of the operation's case", async () => {
    const { caseId, authorized } = await authorisedReplacement();
    const permit = await db.sendPermit.findFirstOrThrow({ where: { hold: { holdId: authorized.holdId } } });
    await owner.sendPermit.update({ where: { id: permit.id }, data: { sendDeadline: new Date(Date.now() - 1000) } });
    expect(await parkOverduePermits(db, worker())).toBeGreaterThanOrEqual(1);
    expect(await db.case.findUniqueOrThrow({ where: { id: caseId } })).toMatchObject({
      episode: 2,
      stage: "submission_uncertain",
      attemptId: authorized.attemptId,
    });
    expect(await db.sendPermit.findUniqueOrThrow({ where: { id: permit.id } })).toMatchObject({
      status: "uncertain",
      caseRef: caseId,
    });
  });
});

describe("a permit-born case's deadline", () => {
  it("is the send deadline plus the provider's settling period, so the next tick does not escalate a lost answer", async () => {
    const { operationId, input } = permitInput({ provider: "replicate" });
    await requestPermit(db, shop, operationId, input, env());
    const parked = await reportOutcome(db, shop, input.attemptId, outcomeInput(operationId, 1, "unknown"));
    const row = await db.case.findUniqueOrThrow({ where: { id: parked.caseId ?? "" } });
    const settling = await noJobSettlingSeconds(db, "replicate");
    expect(row.retryDeadline?.toISOString()).toBe(
      new Date(Date.parse(input.sendDeadline) + settling * 1000).toISOString(),
    );
    await escalateOverdueCases(db, worker(), 200, new Date());
    expect((await db.case.findUniqueOrThrow({ where: { id: row.id } })).escalatedAt).toBeNull();
  });
});

describe("the identical permit request after its deadline", () => {
  it("answers where the permit stands, while a new permit with a past deadline is still refused", async () => {
    const { operationId, input } = permitInput({ provider: "replicate" });
    await requestPermit(db, shop, operationId, input, env());
    const permit = await db.sendPermit.findFirstOrThrow({ where: { attempt: { attemptId: input.attemptId } } });
    const passed = new Date(Date.now() - 1000);
    await owner.sendPermit.update({ where: { id: permit.id }, data: { sendDeadline: passed } });
    const late = { ...input, sendDeadline: passed.toISOString() };
    expect(await requestPermit(db, shop, operationId, late, env())).toMatchObject({
      status: "permitted",
      created: false,
      permit: { token: 1, sendDeadline: passed.toISOString() },
    });
    await parkOverduePermits(db, worker());
    expect(await requestPermit(db, shop, operationId, late, env())).toMatchObject({ status: "uncertain" });

    const fresh = permitInput({ provider: "replicate", sendDeadline: passed.toISOString() });
    await expect(requestPermit(db, shop, fresh.operationId, fresh.input, env())).rejects.toMatchObject({
      code: "invalid_request",
    });
    expect(await db.operation.count({ where: { operationId: fresh.operationId } })).toBe(0);
    expect(fingerprint(fresh.operationId)).toBe(fresh.input.requestFingerprint);
  });
});
