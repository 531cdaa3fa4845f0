import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_ROUTES, routeKey } from "@/lib/api/routes";
import { requestFingerprint } from "@/lib/domain/fingerprint";
import { env } from "@/lib/env";
import { parkCase } from "@/lib/services/case/park-case";
import { reconcileCase } from "@/lib/services/case/reconcile-case";
import { reportOutcome } from "@/lib/services/permit/report-outcome";
import { requestPermit } from "@/lib/services/permit/request-permit";
import { type RunningSimulator, startSimulator } from "@/verification/simulator";
import { makeUser, outcomeInput, parkInput, permitInput, producer } from "./fixtures";
import { callRoute } from "./helpers/call-route";
import { openTestDb } from "./setup/test-db";

// Rule 17: several producers share one provider account, so each sees every job on it. Who owns a
// job is decided by the provider's evidence (the signed reference the job was created with, its
// copy of the request), never by who reported it first.
const REPLICATE_SECRET = `whsec_${randomBytes(24).toString("base64")}`;
process.env.REPLICATE_WEBHOOK_SECRET = REPLICATE_SECRET;
process.env.AUTH_SECRET ??= "ownership-by-evidence-test-secret-0123456789";
process.env.WORKER_LOG = "0";

const { db } = openTestDb();
const shopA = producer("evidence-shop-a");
const shopB = producer("evidence-shop-b");
let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startSimulator({ port: 0, timings: { queuedMs: 0, runningMs: 0, outputBytes: 16 * 1024 } });
});
afterAll(async () => {
  await sim.stop();
});

const route = API_ROUTES.find((r) => routeKey(r) === "POST /api/v1/provider-webhooks/replicate");
if (!route) throw new Error("no Replicate webhook route");
let sequence = 0;

/** A Replicate webhook, validly signed over `body`, delivered with `ref` on its URL. */
function replicateCall(body: object, ref?: string) {
  const raw = JSON.stringify(body);
  const id = `msg_evidence_${Date.now()}_${sequence++}`;
  const at = new Date();
  return callRoute(route?.handle as never, {
    rawBody: raw,
    method: "POST",
    ...(ref ? { query: { ref } } : {}),
    headers: {
      "webhook-id": id,
      "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
      "webhook-signature": new Webhook(REPLICATE_SECRET).sign(id, at, raw),
    },
  });
}

async function prediction(jobId: string, status?: "processing") {
  const body = (await (await fetch(`${sim.url}/replicate/v1/predictions/${jobId}`)).json()) as Record<string, unknown>;
  return status ? { ...body, status, output: null, completed_at: null } : body;
}

type Send = Awaited<ReturnType<typeof sendUnderPermit>>;

/** A producer's permit for its own request, and the job that request created at the shared provider account. */
async function sendUnderPermit(shop: typeof shopA) {
  const request = { prompt: `${shop.name} video ${sequence++}`, duration: 5 };
  const { operationId, input } = permitInput({
    provider: "replicate",
    requestFingerprint: requestFingerprint(request),
  });
  const permit = await requestPermit(db, shop, operationId, input, env());
  if (permit.status !== "permitted" || !permit.webhook) throw new Error("expected a permit with webhook URLs");
  const job = sim.state.seedJob({ provider: "replicate", outcome: "succeeded", model: input.model, input: request });
  return { shop, operationId, input, ref: permit.webhook.ref, job, request };
}

const report = (send: Send, jobId: string, outcome: "accepted" | "unknown" = "accepted") =>
  reportOutcome(db, send.shop, send.input.attemptId, outcomeInput(send.operationId, 1, outcome, jobId)).then(
    (result) => ({ ok: true as const, status: result.status }),
    (error: { code?: string }) => ({ ok: false as const, code: error.code }),
  );

async function holdOf(send: Send) {
  return db.hold.findFirstOrThrow({ where: { holdId: send.input.hold.holdId }, include: { entries: true } });
}

async function attemptOf(send: Send) {
  return db.attempt.findFirstOrThrow({ where: { attemptId: send.input.attemptId } });
}

describe("two producers claim one job: the provider's evidence decides, in any order", () => {
  type Step = "reportA" | "reportB" | "hookStart" | "hookDone";
  const orders: Step[][] = [
    ["reportB", "reportA", "hookDone"],
    ["reportB", "hookStart", "reportA", "hookDone"],
    ["hookStart", "reportB", "reportA", "hookDone"],
    ["reportA", "reportB", "hookDone"],
    ["reportB", "hookDone", "reportA"],
    ["reportA", "hookStart", "reportB", "hookDone"],
  ];
  it.each(orders.map((order) => [order.join(" → "), order] as const))("%s", async (_, order) => {
    const a = await sendUnderPermit(shopA);
    const b = await sendUnderPermit(shopB);
    const x = a.job.id; // A's send created X; B squats on it, having seen it in the shared list.
    const reports: Record<string, { ok: boolean; code?: string | undefined }> = {};
    let heldByB = false;
    for (const step of order) {
      if (step === "reportA") reports.A = await report(a, x);
      if (step === "reportB") {
        reports.B = await report(b, x);
        heldByB = reports.B.ok;
      }
      if (step === "hookStart")
        expect((await replicateCall(await prediction(x, "processing"), a.ref)).status).toBe(200);
      if (step === "hookDone") expect((await replicateCall(await prediction(x), a.ref)).status).toBe(200);
    }
    // Exactly one owner, the one whose reference the provider's webhook carries.
    const owners = await db.attempt.findMany({ where: { provider: "replicate", providerJobId: x } });
    expect(owners.map((o) => o.id)).toEqual([(await attemptOf(a)).id]);
    // A's hold is settled once by its own job; B's hold is untouched, and B was never given the job.
    const holdA = await holdOf(a);
    expect(holdA.status).toBe("settled");
    expect(holdA.entries.filter((e) => e.kind === "settle")).toHaveLength(1);
    const holdB = await holdOf(b);
    expect(holdB.status).toBe("held");
    expect(holdB.entries.filter((e) => e.kind === "settle")).toHaveLength(0);
    const permitB = await db.sendPermit.findFirstOrThrow({ where: { attemptRef: (await attemptOf(b)).id } });
    expect(permitB.providerJobId).not.toBe(x);
    expect(await db.case.count({ where: { providerJobId: x, producer: shopB.name } })).toBe(0);
    const attemptB = await attemptOf(b);
    expect(await db.asset.count({ where: { attemptRef: attemptB.id } })).toBe(0);
    expect(await db.providerObservation.count({ where: { attemptRef: attemptB.id } })).toBe(0);
    // A report naming a job someone else holds or the evidence gives to A is refused; never A's own.
    if (reports.A && !heldByB) expect(reports.A.ok).toBe(true);
    if (!heldByB) {
      expect(reports.B).toMatchObject({ ok: false, code: "provider_job_in_use" });
      // The refusal changed nothing of B's claim, yet a reviewer sees it on both sides, once
      // however often B repeats it.
      expect(await report(b, x)).toMatchObject({ ok: false, code: "provider_job_in_use" });
      const refusals = await db.jobClaimConflict.findMany({
        where: { providerJobId: x, outcome: "refused", claimantAttemptRef: attemptB.id },
      });
      expect(refusals).toHaveLength(1);
      expect(refusals[0]).toMatchObject({ door: "report", holderAttemptRef: (await attemptOf(a)).id });
      const flagged = await db.auditEvent.findMany({ where: { kind: "job_claim_contested" } });
      const sides = flagged.filter((f) => (f.after as { conflictId?: number }).conflictId === Number(refusals[0]?.id));
      expect(sides.map((f) => (f.after as { producer: string }).producer).sort()).toEqual([shopA.name, shopB.name]);
    }
    if (heldByB) {
      // B's bare claim lost to A's reference: B's send is an uncertain submission again, both flagged.
      const kase = await db.case.findFirstOrThrow({ where: { producer: shopB.name, operationId: b.operationId } });
      expect(kase).toMatchObject({ stage: "submission_uncertain", state: "parked", providerJobId: null });
      const conflict = await db.jobClaimConflict.findFirstOrThrow({
        where: { providerJobId: x, outcome: "taken_from_holder" },
      });
      expect(conflict).toMatchObject({
        outcome: "taken_from_holder",
        holderAttemptRef: (await attemptOf(b)).id,
        claimantAttemptRef: (await attemptOf(a)).id,
      });
      const flags = await db.auditEvent.findMany({ where: { kind: "job_claim_contested" } });
      const sides = flags.filter((f) => (f.after as { conflictId?: number }).conflictId === Number(conflict.id));
      expect(sides.map((f) => (f.after as { producer: string }).producer).sort()).toEqual([shopA.name, shopB.name]);
      expect(sides.find((f) => (f.after as { producer: string }).producer === shopB.name)?.caseId).toBe(kase.id);
      // Each side's flag names its own operation only: B's timeline never shows A's IDs.
      const bSide = sides.find((f) => (f.after as { producer: string }).producer === shopB.name);
      const shown = JSON.stringify({ after: bSide?.after, evidence: bSide?.evidence });
      expect(shown).not.toContain(a.operationId);
      expect(shown).not.toContain(shopA.name);
    }
  });

  it("keeps a refused claim once, however its repeats interleave", async () => {
    const a = await sendUnderPermit(shopA);
    const b = await sendUnderPermit(shopB);
    const x = a.job.id;
    expect((await report(a, x)).ok).toBe(true);
    const answers = await Promise.all([report(b, x), report(b, x), report(b, x)]);
    expect(answers.map((answer) => (answer.ok ? "ok" : answer.code))).toEqual(Array(3).fill("provider_job_in_use"));
    const claimant = (await attemptOf(b)).id;
    expect(await db.jobClaimConflict.count({ where: { claimantAttemptRef: claimant, outcome: "refused" } })).toBe(1);
  });

  it("a reviewer can still move the job only to the operation the evidence proves", async () => {
    const reviewer = await makeUser(db, ["reviewer"]);
    const a = await sendUnderPermit(shopA);
    const b = await sendUnderPermit(shopB);
    const x = a.job.id;
    expect((await report(b, x)).ok).toBe(true);
    await replicateCall(await prediction(x, "processing"), a.ref);
    const caseB = await db.case.findFirstOrThrow({ where: { producer: shopB.name, operationId: b.operationId } });
    // Attaching X back to B is refused: the provider's signed reference ties X to A's send.
    await expect(
      reconcileCase(db, reviewer, caseB.id, { verdict: "attach", providerJobId: x, evidence: "B said so" }),
    ).rejects.toMatchObject({ code: "provider_job_in_use" });
    const refusal = await db.jobClaimConflict.findFirstOrThrow({ where: { providerJobId: x, outcome: "refused" } });
    expect(refusal).toMatchObject({ door: "attach", claimantAttemptRef: (await attemptOf(b)).id });
    expect(await db.auditEvent.count({ where: { kind: "job_claim_contested", caseId: caseB.id } })).toBeGreaterThan(0);
    // B's own job, whose request is B's, attaches as any uncertain submission's job does.
    await reconcileCase(db, reviewer, caseB.id, {
      verdict: "attach",
      providerJobId: b.job.id,
      evidence: "its request",
    });
    expect((await attemptOf(b)).providerJobId).toBe(b.job.id);
  });
});

describe("the provider's creation time", () => {
  /** A job of `send`'s very request, created `ageMinutes` ago, whose signed webhook came in unclaimed. */
  async function jobOfSameRequest(send: Send, ageMinutes: number) {
    const { model } = send.input;
    const job = sim.state.seedJob({ provider: "replicate", outcome: "succeeded", model, input: send.request });
    const body = {
      ...(await prediction(job.id)),
      created_at: new Date(Date.now() - ageMinutes * 60_000).toISOString(),
    };
    expect((await replicateCall(body)).json).toMatchObject({ outcome: "unmatched" });
    return job;
  }

  it("refuses a job created before the permit was issued, and takes one created after it", async () => {
    const b = await sendUnderPermit(shopB);
    // The request and model match, so only the time can refute the claim.
    const older = await jobOfSameRequest(b, 60);
    expect(await report(b, older.id)).toMatchObject({ ok: false, code: "provider_job_in_use" });
    const conflict = await db.jobClaimConflict.findFirstOrThrow({ where: { providerJobId: older.id } });
    expect(conflict.reason).toContain("before the permit");
    const fresh = await jobOfSameRequest(b, 0);
    expect(await report(b, fresh.id)).toMatchObject({ ok: true });
    expect((await attemptOf(b)).providerJobId).toBe(fresh.id);
  });
});

describe("a park naming a job", () => {
  it("is refused when the provider's signed copy of the request is another operation's, and not for its owner", async () => {
    const request = { prompt: `parked video ${sequence++}` };
    const job = sim.state.seedJob({
      provider: "replicate",
      outcome: "succeeded",
      model: "minimax/video-01",
      input: request,
    });
    // The provider's webhook for the job arrives before anyone has recorded it: kept, with its facts.
    expect((await replicateCall(await prediction(job.id))).json).toMatchObject({ outcome: "unmatched" });
    const squat = parkInput("polling", { provider: "replicate", model: "minimax/video-01", providerJobId: job.id });
    await expect(parkCase(db, shopB, squat)).rejects.toMatchObject({ code: "provider_job_in_use" });
    expect(await db.attempt.count({ where: { providerJobId: job.id } })).toBe(0);
    const own = parkInput("polling", {
      provider: "replicate",
      model: "minimax/video-01",
      providerJobId: job.id,
      requestFingerprint: requestFingerprint(request),
    });
    expect(await parkCase(db, shopA, own)).toMatchObject({ created: true });
  });
});

describe("a signed reference binds to the job the provider created for that send", () => {
  it("refuses another job's body carrying an operation's reference: nothing attached, nothing settled", async () => {
    const a = await sendUnderPermit(shopA);
    const b = await sendUnderPermit(shopB);
    const parked = await report(a, "", "unknown");
    expect(parked.ok).toBe(true);
    const caseA = await db.case.findFirstOrThrow({ where: { producer: shopA.name, operationId: a.operationId } });
    // B's job, validly signed, with A's reference appended to the URL.
    const answer = await replicateCall(await prediction(b.job.id), a.ref);
    expect(answer.json).toMatchObject({ outcome: "transplant", caseId: null });
    expect(await db.case.findUniqueOrThrow({ where: { id: caseA.id } })).toMatchObject({
      stage: "submission_uncertain",
      providerJobId: null,
    });
    expect((await holdOf(a)).status).toBe("held");
    expect(await db.attempt.count({ where: { providerJobId: b.job.id } })).toBe(0);
    expect(await db.jobReference.count({ where: { providerJobId: b.job.id } })).toBe(0);
    expect(await db.jobClaimConflict.findFirstOrThrow({ where: { providerJobId: b.job.id } })).toMatchObject({
      outcome: "transplant",
    });
    // A's own job, with A's reference, still attaches.
    expect((await replicateCall(await prediction(a.job.id), a.ref)).json).toMatchObject({
      outcome: "attached",
      caseId: caseA.id,
    });
  });

  it("the first webhook to carry a reference fixes its job: the same reference on another job's body is refused", async () => {
    const a = await sendUnderPermit(shopA);
    expect((await report(a, "", "unknown")).ok).toBe(true);
    const caseA = await db.case.findFirstOrThrow({ where: { producer: shopA.name, operationId: a.operationId } });
    // A copy of A's request sent by someone else: the provider's facts cannot tell them apart.
    const copy = sim.state.seedJob({
      provider: "replicate",
      outcome: "succeeded",
      model: a.input.model,
      input: a.job.input,
    });
    expect((await replicateCall(await prediction(a.job.id, "processing"), a.ref)).json).toMatchObject({
      outcome: "attached",
    });
    const answer = await replicateCall(await prediction(copy.id), a.ref);
    expect(answer.json).toMatchObject({ outcome: "transplant" });
    expect(await db.case.findUniqueOrThrow({ where: { id: caseA.id } })).toMatchObject({ providerJobId: a.job.id });
    expect(await db.attempt.count({ where: { providerJobId: copy.id } })).toBe(0);
    // And a job first shown with one reference is refused with another.
    const b = await sendUnderPermit(shopB);
    expect((await report(b, "", "unknown")).ok).toBe(true);
    expect((await replicateCall(await prediction(b.job.id, "processing"), b.ref)).json).toMatchObject({
      outcome: "attached",
    });
    expect((await replicateCall(await prediction(b.job.id), a.ref)).json).toMatchObject({ outcome: "transplant" });
    expect((await holdOf(a)).entries.filter((e) => e.kind === "settle")).toHaveLength(0);
    // B's timeline is flagged, and names B's operation only: A's reference stays in the conflict row.
    const caseB = await db.case.findFirstOrThrow({ where: { producer: shopB.name, operationId: b.operationId } });
    const flagsB = await db.auditEvent.findMany({ where: { caseId: caseB.id, kind: "job_claim_contested" } });
    expect(flagsB.length).toBeGreaterThan(0);
    const shown = JSON.stringify(flagsB.map((f) => ({ after: f.after, evidence: f.evidence })));
    expect(shown).not.toContain(a.operationId);
    expect(shown).not.toContain(shopA.name);
  });

  it("where the signed body echoes its webhook URL, a different reference on the URL is a transplant", async () => {
    const a = await sendUnderPermit(shopA);
    const b = await sendUnderPermit(shopB);
    expect((await report(a, "", "unknown")).ok).toBe(true);
    const echoed = { ...(await prediction(b.job.id)), webhook: `https://recovery.example/hook?ref=${b.ref}` };
    expect((await replicateCall(echoed, a.ref)).json).toMatchObject({ outcome: "transplant" });
    expect((await holdOf(a)).status).toBe("held");
  });
});
