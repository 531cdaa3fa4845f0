import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { requestFingerprint } from "@/lib/domain/fingerprint";
import { approveCase } from "@/lib/services/case/approve-case";
import { FRESH_CHECK_KIND } from "@/lib/services/case/look-for-original-job";
import { parkCase } from "@/lib/services/case/park-case";
import { reconcileCase } from "@/lib/services/case/reconcile-case";
import { suggestReconciliations } from "@/lib/services/case/suggest-reconciliations";
import { authorizeReplacement } from "@/lib/services/replacement/decide-replacement";
import { requestReplacement } from "@/lib/services/replacement/request-replacement";
import { type ManualClock, manualClock } from "@/verification/simulator/clock";
import { makeUser, parkInput, producer, worker } from "./fixtures";
import { providerRecovery } from "./helpers/provider-recovery";
import { openTestDb } from "./setup/test-db";

// A Luma generation recovered end to end through the simulator, and an uncertain Luma submission
// found through Luma's generation list: by the worker's search, and by the look before paying again.
process.env.WORKER_LOG = "0";
const { db } = openTestDb();
const MINUTE = 60_000;
const MODEL = "ray-2";
const clock: ManualClock = manualClock(Date.now());
const shop = producer("luma-shop");
const h = providerRecovery(db, {
  provider: "luma",
  model: MODEL,
  evidence: "generation id confirmed in Luma's generation list",
  clock,
  outputTtlMs: 48 * 60 * MINUTE,
});
afterEach(() => {
  h.sim.state.faults.clear();
  expect(h.sim.state.stats().creates).toMatchObject({ luma: 0, total: 0 });
  // Nor a delete: Luma's delete is the one call that loses a paid generation's evidence.
  expect(h.sim.state.cancelCount()).toBe(0);
});

describe("a Luma generation, recovered through the simulator", () => {
  it("resume_poll: a completed generation is copied, the hold settled and the case resolved, creating nothing", async () => {
    const { caseId, jobId } = await h.approvedCase("polling", { outcome: "succeeded" });
    expect(await h.outcomeOf(caseId)).toBe("resolved");
    expect(await db.case.findUniqueOrThrow({ where: { id: caseId } })).toMatchObject({
      stage: "delivery",
      state: "resolved",
      outcome: "delivered",
    });
    expect((await db.hold.findFirstOrThrow({ where: { caseId } })).status).toBe("settled");
    const observation = await db.providerObservation.findFirstOrThrow({ where: { caseId } });
    expect(observation).toMatchObject({ kind: "completed", providerStatus: "completed" });
    const asset = await db.asset.findFirstOrThrow({ where: { caseId } });
    expect((await readFile(path.join(h.assetDir, asset.storageKey))).length).toBe(32 * 1024);
    expect(
      h.sim.state.requests({ pathIncludes: `/luma/dream-machine/v1/generations/${jobId}` }).length,
    ).toBeGreaterThan(0);
  });

  it("resume_poll: a generation still queued is checked again later", async () => {
    const { caseId } = await h.approvedCase("polling", { outcome: "stuck", queuedMs: 3_600_000 });
    expect(await h.outcomeOf(caseId)).toBe("rescheduled");
    const observation = await db.providerObservation.findFirstOrThrow({ where: { caseId } });
    expect(observation).toMatchObject({ kind: "running", providerStatus: "queued" });
  });

  it("resume_poll: a failed generation parks as generation_failed with Luma's failure_reason", async () => {
    const { caseId } = await h.approvedCase("polling", { outcome: "failed", error: "blocked words in the prompt" });
    await h.outcomeOf(caseId);
    expect(await db.case.findUniqueOrThrow({ where: { id: caseId } })).toMatchObject({
      stage: "generation_failed",
      state: "parked",
    });
  });

  it("resume_poll: a 500 then a 429 with Retry-After are ridden out, the answer still read", async () => {
    const { caseId, jobId } = await h.approvedCase("polling", { outcome: "succeeded" });
    h.sim.state.faults.add({
      match: { provider: "luma", jobId },
      fault: { type: "http_error", status: 500 },
      times: 1,
    });
    h.sim.state.faults.add({
      match: { jobId, route: "status" },
      fault: { type: "rate_limit", retryAfterSeconds: 1 },
      times: 1,
    });
    expect(await h.outcomeOf(caseId)).toBe("resolved");
  });

  it("resume_poll: a generation id Luma answers 404 for is parked with that answer, never taken as a failure", async () => {
    const reviewer = await makeUser(db, ["reviewer"]);
    const { caseId } = await parkCase(
      db,
      shop,
      parkInput("polling", { provider: "luma", model: MODEL, providerJobId: "00000000-0000-4000-8000-000000000000" }),
    );
    await approveCase(db, reviewer, caseId, { action: "resume_poll", evidence: "go" });
    await h.outcomeOf(caseId);
    expect(await db.case.findUniqueOrThrow({ where: { id: caseId } })).toMatchObject({
      stage: "polling",
      state: "parked",
    });
    const observation = await db.providerObservation.findFirstOrThrow({ where: { caseId } });
    expect(observation).toMatchObject({ kind: "unknown" });
  });

  it("retry_delivery: the output is copied from the generation's video URL and published, creating nothing", async () => {
    const { caseId } = await h.approvedCase("delivery", { outcome: "succeeded" });
    expect(await h.outcomeOf(caseId)).toBe("resolved");
    const published = await db.asset.findMany({ where: { caseId, publishedAt: { not: null } } });
    expect(published).toHaveLength(1);
  });

  it("retry_delivery: a truncated download is caught and nothing is published", async () => {
    const { caseId, jobId } = await h.approvedCase("delivery", { outcome: "succeeded" });
    h.sim.state.faults.add({ match: { jobId, route: "download" }, fault: { type: "truncate" }, times: 1 });
    expect(await h.outcomeOf(caseId)).toBe("parked");
    expect(await db.asset.count({ where: { caseId, publishedAt: { not: null } } })).toBe(0);
  });
});

// Each uncertain case lives in its own past hour, so one test's generations never fall in another's window.
let hour = 3;
let counter = 0;

async function uncertainCase(atProvider?: (submittedAt: Date, input: Record<string, unknown>) => void) {
  const submittedAt = new Date(clock.now() - hour++ * 60 * MINUTE);
  const input = { prompt: `harbour at dawn #${++counter}`, model: MODEL, duration: "5s" };
  atProvider?.(submittedAt, input);
  const { caseId } = await parkCase(
    db,
    shop,
    parkInput("submission_uncertain", {
      provider: "luma",
      model: MODEL,
      requestFingerprint: requestFingerprint(input),
      submittedAt: submittedAt.toISOString(),
    }),
  );
  return { caseId, submittedAt, input };
}

describe("an uncertain Luma submission, searched through Luma's generation list", () => {
  it("the worker's search suggests the generation whose request matches, attaching nothing", async () => {
    let jobId = "";
    const { caseId } = await uncertainCase((submittedAt, input) => {
      jobId = h.sim.state.seedJob({
        provider: "luma",
        model: MODEL,
        input,
        createdAt: submittedAt.getTime() + 5_000,
      }).id;
      // Another customer's generation in the same minute: same model, another request.
      h.sim.state.seedJob({
        provider: "luma",
        model: MODEL,
        input: { prompt: "someone else's request" },
        createdAt: submittedAt.getTime() + 20_000,
      });
    });
    await suggestReconciliations(h.ctx, worker(), { max: 50 });
    const rows = await db.reconciliationSuggestion.findMany({ where: { caseId }, orderBy: { confidence: "desc" } });
    expect(rows[0]).toMatchObject({
      providerJobId: jobId,
      confidence: 100,
      status: "open",
      providerStatus: "completed",
    });
    expect(rows[0]?.matched).toContain("fingerprint");
    expect(await db.case.findUniqueOrThrow({ where: { id: caseId } })).toMatchObject({
      stage: "submission_uncertain",
      state: "parked",
      providerJobId: null,
    });
    expect(h.sim.state.requests({ pathIncludes: "/luma/dream-machine/v1/generations" }).length).toBeGreaterThan(0);
  });

  it("a replacement resting on 'no job exists' is refused when the lagging list now shows the original", async () => {
    let jobId = "";
    const { caseId } = await uncertainCase((submittedAt, input) => {
      const createdAt = submittedAt.getTime() + 4_000;
      // The generation exists all along, but the list shows it only half an hour after the verdict.
      jobId = h.sim.state.seedJob({
        provider: "luma",
        model: MODEL,
        input,
        createdAt,
        notFoundForMs: clock.now() - createdAt + 30 * MINUTE,
      }).id;
    });
    const reviewer = await makeUser(db, ["reviewer"]);
    await reconcileCase(db, reviewer, caseId, { verdict: "no_job", evidence: "nothing in Luma's generation list" });
    const { requestId } = await requestReplacement(db, reviewer, caseId, { evidence: "customer still waiting" });
    const finance = await makeUser(db, ["finance"]);
    clock.advance(31 * MINUTE);
    const holds = await db.hold.count();

    await expect(
      authorizeReplacement(db, finance, requestId, { evidence: "ok" }, { adapters: h.ctx.adapters }),
    ).rejects.toMatchObject({ code: "original_job_found" });

    expect(await db.case.findUniqueOrThrow({ where: { id: caseId } })).toMatchObject({
      stage: "submission_uncertain",
      state: "parked",
    });
    expect(await db.hold.count()).toBe(holds);
    const suggestions = await db.reconciliationSuggestion.findMany({ where: { caseId } });
    expect(suggestions.map((s) => [s.providerJobId, s.status])).toContainEqual([jobId, "open"]);
    const check = await db.providerObservation.findFirstOrThrow({ where: { caseId, kind: FRESH_CHECK_KIND } });
    expect(check.detail).toMatchObject({ outcome: "found", purpose: "before_replacement" });
    expect(JSON.stringify(check.detail)).not.toContain("harbour at dawn");
  });

  it("a lagging generation whose copy of the request carries Luma's own fields still blocks the replacement", async () => {
    const { caseId } = await uncertainCase((submittedAt, input) => {
      const createdAt = submittedAt.getTime() + 4_000;
      // Luma's record of the request adds its defaults and the callback: it fingerprints differently.
      const copy = { ...input, aspect_ratio: "16:9", loop: false, callback_url: "https://shop.example/hooks/luma" };
      h.sim.state.seedJob({
        provider: "luma",
        model: MODEL,
        input: copy,
        createdAt,
        notFoundForMs: clock.now() - createdAt + 30 * MINUTE,
      });
    });
    const reviewer = await makeUser(db, ["reviewer"]);
    await reconcileCase(db, reviewer, caseId, { verdict: "no_job", evidence: "nothing in Luma's generation list" });
    const { requestId } = await requestReplacement(db, reviewer, caseId, { evidence: "customer still waiting" });
    clock.advance(31 * MINUTE);
    await expect(
      authorizeReplacement(
        db,
        await makeUser(db, ["finance"]),
        requestId,
        { evidence: "ok" },
        { adapters: h.ctx.adapters },
      ),
    ).rejects.toMatchObject({ code: "original_job_found" });
    expect(await db.replacementRequest.findUniqueOrThrow({ where: { id: requestId } })).toMatchObject({
      newAttemptRef: null,
    });
  });

  it("a replacement is authorised when the fresh look through the list finds nothing", async () => {
    const { caseId } = await uncertainCase();
    const reviewer = await makeUser(db, ["reviewer"]);
    await reconcileCase(db, reviewer, caseId, { verdict: "no_job", evidence: "nothing in Luma's generation list" });
    const { requestId } = await requestReplacement(db, reviewer, caseId, { evidence: "customer still waiting" });
    const finance = await makeUser(db, ["finance"]);
    const authorised = await authorizeReplacement(
      db,
      finance,
      requestId,
      { evidence: "budget ok" },
      { adapters: h.ctx.adapters },
    );
    expect(authorised.holdId).toBe(`replacement-${requestId}`);
    const check = await db.providerObservation.findFirstOrThrow({ where: { caseId, kind: FRESH_CHECK_KIND } });
    expect(check.detail).toMatchObject({ outcome: "nothing_found" });
  });
});
