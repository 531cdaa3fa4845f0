import { generateKeyPairSync, randomBytes, sign } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_ROUTES, routeKey } from "@/lib/api/routes";
import { WEBHOOK_REFUSALS_PER_WINDOW } from "@/lib/api/webhook-throttle";
import { signWebhookReference } from "@/lib/auth/webhook-reference";
import { requestFingerprint } from "@/lib/domain/fingerprint";
import { env } from "@/lib/env";
import { falSignedMessage } from "@/lib/providers/fal/webhook";
import { acceptFailure } from "@/lib/services/case/accept-failure";
import { approveCase } from "@/lib/services/case/approve-case";
import { parkCase } from "@/lib/services/case/park-case";
import { reconcileCase } from "@/lib/services/case/reconcile-case";
import { listHolds } from "@/lib/services/hold/list-holds";
import { resolveHold } from "@/lib/services/hold/resolve-hold";
import { reportOutcome } from "@/lib/services/permit/report-outcome";
import { requestPermit } from "@/lib/services/permit/request-permit";
import { matchUnmatchedWebhooks } from "@/lib/services/provider-webhook/receive-webhook";
import { suggestFromWebhooks } from "@/lib/services/provider-webhook/suggest-from-webhooks";
import { authorizeReplacement } from "@/lib/services/replacement/decide-replacement";
import { requestReplacement } from "@/lib/services/replacement/request-replacement";
import { listHoldsSchema } from "@/lib/validation/finance";
import { runTick } from "@/lib/worker/run-tick";
import type { WorkerContext } from "@/lib/worker/worker-context";
import { type RunningSimulator, startSimulator } from "@/verification/simulator";
import { makeUser, outcomeInput, parkInput, permitInput, producer, worker } from "./fixtures";
import { callRoute } from "./helpers/call-route";
import { tableCounts } from "./helpers/table-counts";
import { testWorkerContext } from "./helpers/worker-context";
import { openTestDb } from "./setup/test-db";

// DESIGN 8: the providers' own signed webhooks are evidence, checked on the raw body before anything
// parses it, kept once per event, and applied through the same domain rules as a status check.
const REPLICATE_SECRET = `whsec_${randomBytes(24).toString("base64")}`;
const AUTH_SECRET = "provider-webhook-test-secret-0123456789abcdef";
const falKeys = generateKeyPairSync("ed25519");
const otherKeys = generateKeyPairSync("ed25519");
const jwks = createServer((_req, res) => {
  const x = falKeys.publicKey.export({ format: "jwk" }).x;
  res.setHeader("content-type", "application/json");
  res.end(JSON.stringify({ keys: [{ kty: "OKP", crv: "Ed25519", kid: "k1", x }] }));
});
await new Promise<void>((resolve) => jwks.listen(0, "127.0.0.1", resolve));
process.env.REPLICATE_WEBHOOK_SECRET = REPLICATE_SECRET;
process.env.AUTH_SECRET ??= AUTH_SECRET;
process.env.FAL_JWKS_URL = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/.well-known/jwks.json`;
process.env.WORKER_LOG = "0";

const { db } = openTestDb();
const shop = producer("webhook-shop");
let sim: RunningSimulator;
let ctx: WorkerContext;
beforeAll(async () => {
  sim = await startSimulator({ port: 0, timings: { queuedMs: 0, runningMs: 0, outputBytes: 16 * 1024 } });
  ctx = await testWorkerContext(db, sim.url);
});
afterAll(async () => {
  await sim.stop();
  jwks.close();
});

const handler = (key: string) => {
  const route = API_ROUTES.find((r) => routeKey(r) === key);
  if (!route) throw new Error(`${key} is not in the route table`);
  return route.handle;
};
const replicateRoute = handler("POST /api/v1/provider-webhooks/replicate");
const falRoute = handler("POST /api/v1/provider-webhooks/fal");

let sequence = 0;
function replicateCall(body: object, options: { id?: string; at?: Date; secret?: string; ref?: string } = {}) {
  const raw = JSON.stringify(body);
  const id = options.id ?? `msg_${Date.now()}_${sequence++}`;
  const at = options.at ?? new Date();
  const signature = new Webhook(options.secret ?? REPLICATE_SECRET).sign(id, at, raw);
  return callRoute(replicateRoute, {
    rawBody: raw,
    method: "POST",
    ...(options.ref ? { query: { ref: options.ref } } : {}),
    headers: {
      "webhook-id": id,
      "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
      "webhook-signature": signature,
    },
  });
}

function falCall(
  body: { request_id: string; [key: string]: unknown },
  options: { at?: Date; key?: typeof falKeys.privateKey; ref?: string; account?: string } = {},
) {
  const raw = JSON.stringify(body);
  const account = options.account ?? "fal-user-1";
  const timestamp = String(Math.floor((options.at ?? new Date()).getTime() / 1000));
  const message = falSignedMessage(body.request_id, account, timestamp, raw);
  const signature = sign(null, message, options.key ?? falKeys.privateKey).toString("hex");
  return callRoute(falRoute, {
    rawBody: raw,
    method: "POST",
    ...(options.ref ? { query: { ref: options.ref } } : {}),
    headers: {
      "x-fal-webhook-request-id": body.request_id,
      "x-fal-webhook-user-id": account,
      "x-fal-webhook-timestamp": timestamp,
      "x-fal-webhook-signature": signature,
    },
  });
}

/** The prediction as the simulator (standing in for Replicate) would post it: the same shape its status route serves. */
async function prediction(jobId: string) {
  const response = await fetch(`${sim.url}/replicate/v1/predictions/${jobId}`);
  return (await response.json()) as { id: string; status: string };
}

/**
 * A fresh permit, and a way to seed the job its send created: the provider's copy carries the
 * permit's own request and model, as the provider's evidence must for its reference to count (rule 17).
 */
function permitAndItsJob(outcome: "succeeded" | "stuck" = "succeeded") {
  const request = { prompt: `permit request ${sequence++}`, duration: 5 };
  const made = permitInput({ provider: "replicate", requestFingerprint: requestFingerprint(request) });
  const seed = () => sim.state.seedJob({ provider: "replicate", outcome, model: made.input.model, input: request });
  return { ...made, seed };
}

async function parkedPolling(outcome: "succeeded" | "failed" = "succeeded") {
  const job = sim.state.seedJob({ provider: "replicate", outcome });
  const input = parkInput("polling", { provider: "replicate", model: job.model, providerJobId: job.id });
  const { caseId } = await parkCase(db, shop, input);
  return { caseId, jobId: job.id, holdId: input.hold.holdId };
}

describe("the signature comes first", () => {
  it("answers a missing, wrong, foreign or stale signature with 401 and stores nothing", async () => {
    const { jobId } = await parkedPolling();
    const body = { ...(await prediction(jobId)), status: "succeeded" };
    const before = await tableCounts(db);
    const unsigned = await callRoute(replicateRoute, { rawBody: JSON.stringify(body), method: "POST" });
    expect(unsigned.status).toBe(401);
    expect((await replicateCall(body, { secret: `whsec_${randomBytes(24).toString("base64")}` })).status).toBe(401);
    expect((await replicateCall(body, { at: new Date(Date.now() - 6 * 60_000) })).status).toBe(401);
    const fal = { request_id: jobId, status: "OK", payload: {} };
    expect((await falCall(fal, { key: otherKeys.privateKey })).status).toBe(401);
    expect((await falCall(fal, { at: new Date(Date.now() - 6 * 60_000) })).status).toBe(401);
    expect((await callRoute(falRoute, { rawBody: JSON.stringify(fal), method: "POST" } as never)).status).toBe(401);
    expect(await tableCounts(db)).toEqual(before);
  });

  it("verifies the raw bytes: a body changed after signing is refused", async () => {
    const { jobId } = await parkedPolling();
    const body = await prediction(jobId);
    const raw = JSON.stringify(body);
    const id = `msg_tampered_${sequence++}`;
    const at = new Date();
    const signature = new Webhook(REPLICATE_SECRET).sign(id, at, raw);
    const tampered = await callRoute(replicateRoute, {
      rawBody: `${raw} `,
      method: "POST",
      headers: {
        "webhook-id": id,
        "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
        "webhook-signature": signature,
      },
    });
    expect(tampered.status).toBe(401);
  });
});

describe("a verified webhook is an observation", () => {
  it("converges a parked job check on completion: outputs recorded, hold settled, on to delivery, nothing approved", async () => {
    const { caseId, jobId, holdId } = await parkedPolling();
    const answer = await replicateCall(await prediction(jobId));
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ duplicate: false, outcome: "converged", caseId });
    expect(await db.case.findUniqueOrThrow({ where: { id: caseId } })).toMatchObject({
      stage: "delivery",
      state: "parked",
      heldMicros: 0n,
    });
    expect(await db.hold.findFirstOrThrow({ where: { holdId } })).toMatchObject({
      status: "settled",
      settledMicros: 100_000n,
    });
    const observed = await db.providerObservation.findMany({ where: { caseId } });
    expect(observed.map((o) => o.kind)).toEqual(["completed"]);
    expect(await db.recoveryAction.count({ where: { caseId } })).toBe(0);
    const audit = await db.auditEvent.findMany({ where: { caseId }, orderBy: { id: "asc" } });
    expect(audit.map((e) => e.kind).slice(-2)).toEqual(["hold_settled", "completion_observed"]);
    expect(audit.at(-1)?.actorLabel).toBe("replicate webhook (signature verified)");
    // Finance's list says who settled it (not "unknown"): nobody in finance, the provider's signed word.
    const finance = await makeUser(db, ["finance"]);
    const settled = await listHolds(db, finance, listHoldsSchema.parse({ status: "settled", limit: 200 }));
    expect(settled.items.find((h) => h.holdId === holdId)).toMatchObject({
      decidedBy: "replicate webhook (signature verified)",
      decisionNote: "settled on the provider's signed completion",
    });
  });

  it("books a flagged charge after release when the job's completion comes after finance wrote its hold off (DESIGN rule 18)", async () => {
    const { caseId, jobId, holdId } = await parkedPolling();
    const finance = await makeUser(db, ["finance"]);
    const hold = await db.hold.findFirstOrThrow({ where: { holdId } });
    await resolveHold(db, finance, hold.id, { kind: "write_off", note: "support lost it", evidence: "ticket 3" });
    const answer = await replicateCall(await prediction(jobId));
    expect(answer.json).toMatchObject({ outcome: "converged", caseId });
    const entries = await db.ledgerEntry.findMany({ where: { holdRef: hold.id }, orderBy: { createdAt: "asc" } });
    expect(entries.map((e) => [e.kind, e.amountMicros, e.flagged])).toEqual([
      ["reserve", 100_000n, false],
      ["release", 100_000n, false],
      ["late_charge", 100_000n, true],
    ]);
    expect(await db.auditEvent.count({ where: { caseId, kind: "charged_after_release" } })).toBe(1);
    expect(await db.case.findUniqueOrThrow({ where: { id: caseId } })).toMatchObject({
      stage: "delivery",
      heldMicros: 0n,
    });
  });

  it("keeps duplicates and replays once, and never moves backwards on a late 'processing'", async () => {
    const { caseId, jobId } = await parkedPolling();
    const body = await prediction(jobId);
    const id = `msg_dup_${sequence++}`;
    const first = await replicateCall(body, { id });
    const again = await replicateCall(body, { id });
    expect(again.json).toMatchObject({ duplicate: true, outcome: first.json.outcome });
    const late = await replicateCall({ ...body, status: "processing", output: null });
    expect(late.json).toMatchObject({ duplicate: false, outcome: "observed" });
    expect(await db.case.findUniqueOrThrow({ where: { id: caseId } })).toMatchObject({
      stage: "delivery",
      state: "parked",
    });
    expect(await db.providerObservation.count({ where: { caseId } })).toBe(1);
    expect(await db.providerWebhook.count({ where: { providerJobId: jobId } })).toBe(2);
    expect(await db.ledgerEntry.count({ where: { hold: { caseId }, kind: "settle" } })).toBe(1);
  });

  it("a failure reported by fal moves a parked check to generation_failed", async () => {
    const job = sim.state.seedJob({ provider: "fal", outcome: "failed" });
    const { caseId } = await parkCase(
      db,
      shop,
      parkInput("polling", { provider: "fal", model: job.model, providerJobId: job.id }),
    );
    const answer = await falCall({
      request_id: job.id,
      status: "ERROR",
      error: "the model refused the prompt",
      payload: {},
    });
    expect(answer.json).toMatchObject({ outcome: "converged" });
    expect(await db.case.findUniqueOrThrow({ where: { id: caseId } })).toMatchObject({
      stage: "generation_failed",
      state: "parked",
    });
  });

  it("takes a 900 KB Replicate webhook whose logs carry NUL and a lone surrogate, as Replicate echoes them", async () => {
    const { caseId, jobId } = await parkedPolling();
    const logs = `frame 1\u0000 decoded \ud800 ${"x".repeat(900 * 1024)}`;
    const answer = await replicateCall({ ...(await prediction(jobId)), logs });
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ outcome: "converged", caseId });
    expect(await db.case.findUniqueOrThrow({ where: { id: caseId } })).toMatchObject({ stage: "delivery" });
  });

  it("refuses a fal webhook from another fal account, though fal's own keys signed it", async () => {
    const ours = sim.state.seedJob({ provider: "fal", outcome: "failed" });
    const theirs = sim.state.seedJob({ provider: "fal", outcome: "failed" });
    for (const job of [ours, theirs]) {
      await parkCase(db, shop, parkInput("polling", { provider: "fal", model: job.model, providerJobId: job.id }));
    }
    const failed = (id: string) => ({ request_id: id, status: "ERROR", error: "refused", payload: {} });
    expect((await falCall(failed(ours.id))).status).toBe(200);
    const foreign = await falCall(failed(theirs.id), { account: "someone-elses-fal-account" });
    expect(foreign.status).toBe(401);
    // Another account's webhooks carry fal's real signature: however many arrive, they never get the
    // address fal sends from throttled, so this deployment's own webhooks still go through.
    for (let i = 0; i < WEBHOOK_REFUSALS_PER_WINDOW; i++) {
      expect((await falCall(failed(theirs.id), { account: "someone-elses-fal-account" })).status).toBe(401);
    }
    const oursAgain = sim.state.seedJob({ provider: "fal", outcome: "failed" });
    await parkCase(
      db,
      shop,
      parkInput("polling", { provider: "fal", model: oursAgain.model, providerJobId: oursAgain.id }),
    );
    expect((await falCall(failed(oursAgain.id))).status).toBe(200);
    expect(await db.providerWebhook.count({ where: { providerJobId: theirs.id } })).toBe(0);
    expect(await db.providerAccount.findUniqueOrThrow({ where: { provider: "fal" } })).toMatchObject({
      accountId: "fal-user-1",
    });
    // The pin is the database's: the app role cannot move it to another account.
    await expect(db.providerAccount.update({ where: { provider: "fal" }, data: { accountId: "x" } })).rejects.toThrow();
  });

  it("racing a worker's status check on the same case ends in one outcome", async () => {
    const reviewer = await makeUser(db, ["reviewer"]);
    const { caseId, jobId } = await parkedPolling();
    await approveCase(db, reviewer, caseId, { action: "resume_poll", evidence: "check again" });
    const body = await prediction(jobId);
    const [tick, hook] = await Promise.all([runTick(ctx, worker(), { maxTasks: 10 }), replicateCall(body)]);
    expect(hook.status).toBe(200);
    expect(tick.results.find((r) => r.caseId === caseId)?.outcome).toBe("resolved");
    expect(await db.case.findUniqueOrThrow({ where: { id: caseId } })).toMatchObject({
      state: "resolved",
      outcome: "delivered",
    });
    expect(await db.ledgerEntry.count({ where: { hold: { caseId }, kind: "settle" } })).toBe(1);
    const moves = await db.auditEvent.count({ where: { caseId, kind: "completion_observed" } });
    expect(moves).toBe(1);
  });
});

describe("jobs the product does not know yet", () => {
  it("keeps an unknown job's webhook as unmatched, and applies it once the job is recorded", async () => {
    const job = sim.state.seedJob({ provider: "replicate", outcome: "succeeded" });
    const answer = await replicateCall(await prediction(job.id));
    expect(answer.json).toMatchObject({ outcome: "unmatched", caseId: null });
    expect(await matchUnmatchedWebhooks(db, worker())).toBe(0);
    // The registration names the request the provider's copy shows (rule 17: another would be refused).
    const input = parkInput("polling", {
      provider: "replicate",
      model: job.model,
      providerJobId: job.id,
      requestFingerprint: requestFingerprint(job.input),
    });
    const { caseId } = await parkCase(db, shop, input);
    expect(await matchUnmatchedWebhooks(db, worker())).toBeGreaterThanOrEqual(1);
    expect(await db.case.findUniqueOrThrow({ where: { id: caseId } })).toMatchObject({
      stage: "delivery",
      state: "parked",
    });
    const kept = await db.providerWebhook.findFirstOrThrow({ where: { providerJobId: job.id } });
    expect(kept).toMatchObject({ outcome: "converged", caseRef: caseId });
    expect(kept.note).toContain("matched after its job was recorded");
    expect(await matchUnmatchedWebhooks(db, worker())).toBe(0);
  });

  it("suggests an unowned job to the uncertain submission whose request it carries, and attaches nothing", async () => {
    const request = { prompt: "a heron taking off from a misty lake", duration: 5 };
    const input = parkInput("submission_uncertain", {
      provider: "replicate",
      model: "minimax/video-01",
      requestFingerprint: requestFingerprint(request),
      submittedAt: new Date().toISOString(),
    });
    const { caseId } = await parkCase(db, shop, input);
    const other = await parkCase(
      db,
      shop,
      parkInput("submission_uncertain", { provider: "replicate", submittedAt: new Date().toISOString() }),
    );
    const jobId = `job-unowned-${sequence++}`;
    const body = {
      id: jobId,
      model: "minimax/video-01",
      status: "succeeded",
      input: request,
      created_at: new Date().toISOString(),
      output: "https://replicate.delivery/x.mp4",
    };
    expect((await replicateCall(body)).json).toMatchObject({ outcome: "unmatched" });
    expect(await suggestFromWebhooks(db, worker())).toBeGreaterThanOrEqual(1);
    const suggestion = await db.reconciliationSuggestion.findFirstOrThrow({ where: { caseId, providerJobId: jobId } });
    expect(suggestion.matched).toEqual(expect.arrayContaining(["fingerprint", "model"]));
    const weaker = await db.reconciliationSuggestion.findFirst({
      where: { caseId: other.caseId, providerJobId: jobId },
    });
    expect(weaker?.confidence ?? 0).toBeLessThan(suggestion.confidence);
    expect(await db.case.findUniqueOrThrow({ where: { id: caseId } })).toMatchObject({
      stage: "submission_uncertain",
      providerJobId: null,
    });
    expect(await suggestFromWebhooks(db, worker())).toBe(0);
  });

  it("answers a live permit's send: the provider's completion settles the permit's hold", async () => {
    const { operationId, input } = permitInput({ provider: "fal" });
    await requestPermit(db, shop, operationId, input, env());
    const job = `fal-req-${sequence++}`;
    await reportOutcome(db, shop, input.attemptId, outcomeInput(operationId, 1, "accepted", job));
    const answer = await falCall({
      request_id: job,
      status: "OK",
      payload: { video: { url: "https://v3.fal.media/files/v.mp4" } },
    });
    expect(answer.json).toMatchObject({ outcome: "permit_reported" });
    expect(await db.sendPermit.findFirstOrThrow({ where: { operation: { operationId } } })).toMatchObject({
      status: "completed",
    });
    expect(await db.hold.findFirstOrThrow({ where: { holdId: input.hold.holdId } })).toMatchObject({
      status: "settled",
    });
  });

  it("racing the producer's own report on a live permit, ends in one settlement whichever comes first", async () => {
    for (let round = 0; round < 4; round++) {
      const { operationId, input } = permitInput({ provider: "fal" });
      const permit = await requestPermit(db, shop, operationId, input, env());
      if (permit.status !== "permitted" || !permit.webhook) throw new Error("no permit");
      const job = `fal-race-${sequence++}`;
      const body = { request_id: job, status: "OK", payload: { video: { url: "https://v3.fal.media/files/v.mp4" } } };
      const [report, hook] = await Promise.all([
        reportOutcome(db, shop, input.attemptId, outcomeInput(operationId, 1, "accepted", job)),
        falCall(body, { ref: permit.webhook.ref }),
      ]);
      expect(hook.status).toBe(200);
      expect(["accepted", "completed"]).toContain(report.status);
      expect(await db.sendPermit.findFirstOrThrow({ where: { operation: { operationId } } })).toMatchObject({
        status: "completed",
        providerJobId: job,
      });
      const hold = await db.hold.findFirstOrThrow({ where: { holdId: input.hold.holdId }, include: { entries: true } });
      expect(hold.entries.filter((e) => e.kind === "settle")).toHaveLength(1);
    }
  });

  it("with the operation's signed reference, attaches the job to the uncertain case, and approves nothing", async () => {
    const { operationId, input, seed } = permitAndItsJob();
    const permit = await requestPermit(db, shop, operationId, input, env());
    if (permit.status !== "permitted" || !permit.webhook) throw new Error("expected a permit with webhook URLs");
    expect(permit.webhook.urls.replicate).toContain(`/api/v1/provider-webhooks/replicate?ref=${permit.webhook.ref}`);
    const parked = await reportOutcome(db, shop, input.attemptId, outcomeInput(operationId, 1, "unknown"));
    const job = seed();
    const { ref } = permit.webhook;
    const forged = signWebhookReference("another-deployment-secret-0123456789abcdef", {
      producer: shop.name,
      operationId,
      attemptId: input.attemptId,
    });
    const unsigned = await replicateCall({ ...(await prediction(job.id)) }, { ref: forged });
    expect(unsigned.json).toMatchObject({ outcome: "unmatched" });
    const answer = await replicateCall({ ...(await prediction(job.id)) }, { ref });
    expect(answer.json).toMatchObject({ outcome: "attached", caseId: parked.caseId });
    expect(await db.case.findUniqueOrThrow({ where: { id: parked.caseId ?? "" } })).toMatchObject({
      providerJobId: job.id,
      stage: "delivery",
      state: "parked",
    });
    expect(await db.recoveryAction.count({ where: { caseId: parked.caseId ?? "" } })).toBe(0);
    const attached = await db.auditEvent.findFirstOrThrow({
      where: { caseId: parked.caseId, kind: "reconciled_job_found" },
    });
    expect(attached.actorLabel).toBe("replicate webhook (signature verified)");
  });

  it("the reference names its attempt: a late webhook of the first attempt is not taken for the operation's next episode", async () => {
    const { operationId, input, seed } = permitAndItsJob();
    const permit = await requestPermit(db, shop, operationId, input, env());
    if (permit.status !== "permitted" || !permit.webhook) throw new Error("expected a permit with webhook URLs");
    const parked = await reportOutcome(db, shop, input.attemptId, outcomeInput(operationId, 1, "unknown"));
    const caseId = parked.caseId ?? "";
    const reviewer = await makeUser(db, ["reviewer"]);
    const later = { now: new Date(Date.now() + 24 * 3600_000) };
    await reconcileCase(db, reviewer, caseId, { verdict: "no_job", evidence: "nothing listed" }, later);
    await acceptFailure(db, reviewer, caseId, { evidence: "the customer gave up" });
    // The shop sends the operation again later, and that attempt's answer is lost too: episode 2.
    const again = parkInput("submission_uncertain", {
      operationId,
      attemptId: `${operationId}-a2`,
      hold: { holdId: `hold-${operationId}-a2`, amountMicros: 100_000, currency: "USD" },
    });
    expect(await parkCase(db, shop, again)).toMatchObject({ caseId, stage: "submission_uncertain" });
    // The first attempt's job turns up, with the first attempt's reference: nothing about attempt 2.
    const job = seed();
    const answer = await replicateCall({ ...(await prediction(job.id)) }, { ref: permit.webhook.ref });
    expect(answer.json).toMatchObject({ outcome: "unmatched" });
    expect(await db.case.findUniqueOrThrow({ where: { id: caseId } })).toMatchObject({
      episode: 2,
      attemptId: `${operationId}-a2`,
      stage: "submission_uncertain",
      providerJobId: null,
    });
  });

  it("with the reference, contradicts a 'no job exists' verdict: back to reconciliation, the job attached, the pending replacement withdrawn", async () => {
    const { operationId, input, seed } = permitAndItsJob("stuck");
    const permit = await requestPermit(db, shop, operationId, input, env());
    if (permit.status !== "permitted" || !permit.webhook) throw new Error("expected a permit with webhook URLs");
    const parked = await reportOutcome(db, shop, input.attemptId, outcomeInput(operationId, 1, "unknown"));
    const caseId = parked.caseId ?? "";
    const reviewer = await makeUser(db, ["reviewer"]);
    const later = { now: new Date(Date.now() + 24 * 3600_000) };
    await reconcileCase(db, reviewer, caseId, { verdict: "no_job", evidence: "nothing listed at the provider" }, later);
    const { requestId } = await requestReplacement(db, reviewer, caseId, { evidence: "no job: generate again" });
    // The provider's list lagged; its own signed webhook, carrying the operation's reference, did not.
    const job = seed();
    const answer = await replicateCall({ ...(await prediction(job.id)) }, { ref: permit.webhook.ref });
    expect(answer.json).toMatchObject({ outcome: "attached", caseId });
    expect(await db.case.findUniqueOrThrow({ where: { id: caseId } })).toMatchObject({
      stage: "polling",
      state: "parked",
      providerJobId: job.id,
    });
    expect(await db.replacementRequest.findUniqueOrThrow({ where: { id: requestId } })).toMatchObject({
      status: "withdrawn",
    });
    const kinds = (await db.auditEvent.findMany({ where: { caseId }, orderBy: { id: "asc" } })).map((e) => e.kind);
    expect(kinds.slice(-3)).toEqual([
      "returned_to_reconciliation",
      "replacement_request_closed",
      "reconciled_job_found",
    ]);
    const finance = await makeUser(db, ["finance"]);
    await expect(
      authorizeReplacement(db, finance, requestId, { evidence: "budget approved" }, { adapters: ctx.adapters }),
    ).rejects.toMatchObject({ code: "illegal_transition" });
    expect(await db.replacementRequest.findUniqueOrThrow({ where: { id: requestId } })).toMatchObject({
      status: "withdrawn",
    });
  });
});

// docs/performance.md §7a: duplicates, unowned jobs and an accepted permit's completion are answered
// without a transaction; racing deliveries must still be kept once and decide once.
describe("the intake's one-statement answers", () => {
  const acceptedPermit = async () => {
    const { operationId, input } = permitInput();
    await requestPermit(db, shop, operationId, input, env());
    const job = `${randomBytes(4).toString("hex")}-sent-${sequence++}`;
    await reportOutcome(db, shop, input.attemptId, outcomeInput(operationId, 1, "accepted", job));
    return { operationId, input, job };
  };
  const completion = (job: string) => ({
    id: job,
    status: "succeeded",
    output: `https://replicate.delivery/${job}.mp4`,
    model: "omni-flash-720p",
  });

  it("an accepted permit's completion, delivered many times at once and by several events, settles its hold once", async () => {
    const { operationId, input, job } = await acceptedPermit();
    const id = `msg_owned_${sequence++}`;
    const answers = await Promise.all([
      ...Array.from({ length: 6 }, () => replicateCall(completion(job), { id })),
      ...Array.from({ length: 3 }, () => replicateCall(completion(job))),
    ]);
    expect(answers.map((a) => a.status)).toEqual(Array(9).fill(200));
    // One delivery of the event is answered as new, its copies as its duplicates; the other events
    // find the permit reported (a repeat of the same report), and none of them settles again.
    const sameEvent = answers.slice(0, 6).map((a) => a.json.duplicate);
    expect(sameEvent.filter((duplicate) => duplicate === false)).toHaveLength(1);
    expect(answers.every((a) => a.json.outcome === "permit_reported" || a.json.outcome === "observed")).toBe(true);
    const permit = await db.sendPermit.findFirstOrThrow({ where: { operation: { operationId } } });
    expect(permit).toMatchObject({ status: "completed", providerJobId: job });
    const hold = await db.hold.findFirstOrThrow({ where: { holdId: input.hold.holdId }, include: { entries: true } });
    expect(hold).toMatchObject({ status: "settled", settledMicros: 100_000n, releasedMicros: 0n });
    expect(hold.entries.map((e) => [e.kind, e.amountMicros])).toEqual([
      ["reserve", 100_000n],
      ["settle", 100_000n],
    ]);
    const audits = await db.auditEvent.findMany({
      where: { kind: "permit_completed", after: { path: ["operationId"], equals: operationId } },
    });
    expect(audits).toHaveLength(1);
    expect(audits[0]).toMatchObject({
      actorKind: "system",
      caseId: null,
      // On the operation's own audit chain, as every permit event is (decision 059).
      operationRef: permit.operationRef,
      after: { producer: shop.name, operationId, attemptId: input.attemptId, token: 1, holdSettledMicros: 100_000 },
    });
    const rows = await db.providerWebhook.findMany({ where: { providerJobId: job }, orderBy: { id: "asc" } });
    expect(rows).toHaveLength(4);
    // Whichever event's statement ran first completed the permit; which one that is, is a race.
    const completing = rows.filter((r) => r.note === "permit completed");
    expect(completing).toHaveLength(1);
    expect(completing[0]).toMatchObject({ outcome: "permit_reported", permitRef: permit.id, caseRef: null });
  });

  it("an accepted permit's completion keeps its output's vault intent in the same statement, and its retry changes nothing", async () => {
    const { job } = await acceptedPermit();
    const id = `msg_owned_vault_${sequence++}`;
    const first = await replicateCall(completion(job), { id });
    const kept = await db.vaultCopy.findMany({ where: { providerJobId: job } });
    const retry = await replicateCall(completion(job), { id });
    expect(first.json).toEqual({ duplicate: false, outcome: "permit_reported", caseId: null });
    expect(retry.json).toEqual({ ...first.json, duplicate: true });
    // Decision 081: no write after the completion's statement is needed for the intent to exist.
    expect(kept.map((c) => [c.source, c.status, c.url])).toEqual([
      ["webhook", "pending", `https://replicate.delivery/${job}.mp4`],
    ]);
    expect(await db.vaultCopy.findMany({ where: { providerJobId: job } })).toEqual(kept);
  });

  it("a completion after finance released the hold is left to the transaction: a charge after release, not a settlement", async () => {
    const { operationId, input, job } = await acceptedPermit();
    const finance = await makeUser(db, ["finance"]);
    const hold = await db.hold.findFirstOrThrow({ where: { holdId: input.hold.holdId } });
    await resolveHold(db, finance, hold.id, { kind: "write_off", note: "support lost it", evidence: "ticket 4" });
    const answer = await replicateCall(completion(job));
    expect(answer.json).toMatchObject({ duplicate: false, outcome: "permit_reported" });
    expect(await db.sendPermit.findFirstOrThrow({ where: { operation: { operationId } } })).toMatchObject({
      status: "completed",
    });
    const entries = await db.ledgerEntry.findMany({ where: { hold: { holdId: input.hold.holdId } } });
    expect(entries.filter((e) => e.kind === "settle")).toHaveLength(0);
  });

  it("a second tenant of the provider account reporting the first's job owns nothing: the completion settles the first's hold alone", async () => {
    const { operationId, input, job } = await acceptedPermit();
    // Another shop on the same Replicate account reads the account's job list and names the job.
    const tenant = producer("second-tenant");
    const theirs = permitInput();
    await requestPermit(db, tenant, theirs.operationId, theirs.input, env());
    const claim = await reportOutcome(
      db,
      tenant,
      theirs.input.attemptId,
      outcomeInput(theirs.operationId, 1, "accepted", job),
    ).catch((error: unknown) => error);
    expect(claim).toMatchObject({ code: "provider_job_in_use" });
    const answer = await replicateCall(completion(job));
    expect(answer.json).toMatchObject({ duplicate: false, outcome: "permit_reported" });
    const mine = await db.hold.findFirstOrThrow({ where: { holdId: input.hold.holdId } });
    expect(mine).toMatchObject({ status: "settled", settledMicros: 100_000n });
    const their = await db.hold.findFirstOrThrow({
      where: { producer: tenant.name, holdId: theirs.input.hold.holdId },
    });
    expect(their).toMatchObject({ status: "held", settledMicros: 0n });
    expect(
      await db.sendPermit.findFirstOrThrow({
        where: { operation: { producer: tenant.name, operationId: theirs.operationId } },
      }),
    ).toMatchObject({ status: "live", providerJobId: null });
    expect(
      await db.sendPermit.findFirstOrThrow({ where: { operation: { producer: shop.name, operationId } } }),
    ).toMatchObject({
      status: "completed",
      providerJobId: job,
    });
  });

  it("finance writing a hold off while its job's completion arrives charges the video exactly once, whichever commits first", async () => {
    const finance = await makeUser(db, ["finance"]);
    for (let round = 0; round < 3; round++) {
      const { operationId, input, job } = await acceptedPermit();
      const hold = await db.hold.findFirstOrThrow({ where: { holdId: input.hold.holdId } });
      const [decided, answer] = await Promise.all([
        resolveHold(db, finance, hold.id, { kind: "write_off", note: "support lost it", evidence: "ticket 5" }).then(
          () => "written off",
          (error: unknown) => error,
        ),
        replicateCall(completion(job)),
      ]);
      expect(answer.status).toBe(200);
      expect(await db.sendPermit.findFirstOrThrow({ where: { operation: { operationId } } })).toMatchObject({
        status: "completed",
      });
      const entries = await db.ledgerEntry.findMany({ where: { holdRef: hold.id } });
      const charges = entries.filter((e) => e.kind === "settle" || e.kind === "late_charge");
      expect(charges.map((e) => e.amountMicros)).toEqual([100_000n]);
      if (decided === "written off") {
        // The write-off came first: the completion is a flagged charge after release (rule 18).
        expect(charges[0]?.kind).toBe("late_charge");
      } else {
        // The completion settled first: the write-off found nothing held and changed nothing.
        expect(decided).toMatchObject({ code: expect.any(String) });
        expect(charges[0]?.kind).toBe("settle");
        expect(entries.some((e) => e.kind === "release")).toBe(false);
      }
    }
  });

  it("one unowned event delivered eight times at once is kept once, and answered once as new", async () => {
    const job = `${randomBytes(4).toString("hex")}-nobody-${sequence++}`;
    const id = `msg_unowned_${sequence++}`;
    const body = { id: job, status: "processing", output: null, model: "omni-flash-720p" };
    const answers = await Promise.all(Array.from({ length: 8 }, () => replicateCall(body, { id })));
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
    expect(answers.filter((a) => a.json.duplicate === false)).toHaveLength(1);
    expect(answers.every((a) => a.json.outcome === "unmatched")).toBe(true);
    expect(await db.providerWebhook.count({ where: { webhookId: id } })).toBe(1);
  });
});
