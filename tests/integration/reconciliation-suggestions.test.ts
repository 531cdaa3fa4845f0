import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { requestFingerprint } from "@/lib/domain/fingerprint";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { byProvider, simulatorAdapters } from "@/lib/providers";
import { confirmSuggestion } from "@/lib/services/case/confirm-suggestion";
import { getCase } from "@/lib/services/case/get-case";
import { parkCase } from "@/lib/services/case/park-case";
import {
  SUGGESTION_AUDIT_KIND,
  SUGGESTION_WINDOW_MS,
  suggestReconciliations,
} from "@/lib/services/case/suggest-reconciliations";
import { localStorage } from "@/lib/storage/local-storage";
import { runTick } from "@/lib/worker/run-tick";
import type { WorkerContext } from "@/lib/worker/worker-context";
import { type RunningSimulator, startSimulator } from "@/verification/simulator";
import { makeUser, parkInput, producer, worker } from "./fixtures";
import { dumpAllRows } from "./helpers/tables";
import { openTestDb } from "./setup/test-db";

process.env.WORKER_LOG = "0";
const { db } = openTestDb();
let sim: RunningSimulator;
let ctx: WorkerContext;
const shop = producer("suggest-shop");
const REPLICATE_MODEL = "minimax/video-01";
const FAL_MODEL = "fal-ai/kling-video/v2.5-turbo/pro/text-to-video";
const MINUTE = 60_000;

beforeAll(async () => {
  sim = await startSimulator({
    port: 0,
    // Replicate drops a prediction's input after the retention period; keep it for the whole test.
    timings: { queuedMs: 0, runningMs: 0, outputBytes: 1024, outputTtlMs: 24 * 60 * MINUTE },
  });
  ctx = {
    db,
    adapters: simulatorAdapters(sim.url, {
      retry: { maxAttempts: 2, baseDelayMs: 10, maxDelayMs: 50, perAttemptTimeoutMs: 2_000 },
    }),
    storage: localStorage(await mkdtemp(path.join(tmpdir(), "assets-"))),
    budgetMs: 15_000,
    leaseSeconds: 30,
    pollBaseSeconds: 30,
    pollMaxSeconds: 600,
    concurrency: 2,
    maxDownloadBytes: 1024 * 1024,
    random: () => 0.5,
  };
});
afterAll(() => sim.stop());
afterEach(() => {
  sim.state.faults.clear();
  sim.state.listPageSize = 100;
});

// Each case gets its own hour in the past, so the searched windows never overlap between tests.
let hour = 2;
const freshTime = () => new Date(Date.now() - hour++ * 60 * MINUTE);

let counter = 0;
const inputFor = (label: string) => ({ prompt: `a lighthouse at dusk, ${label} #${++counter}`, seconds: 5 });

async function uncertainCase(opts: {
  provider: "replicate" | "fal";
  model: string;
  input: Record<string, unknown>;
  submittedAt: Date;
}) {
  const { caseId } = await parkCase(
    db,
    shop,
    parkInput("submission_uncertain", {
      provider: opts.provider,
      model: opts.model,
      requestFingerprint: requestFingerprint(opts.input),
      submittedAt: opts.submittedAt.toISOString(),
    }),
  );
  return caseId;
}

const suggest = (options: Parameters<typeof suggestReconciliations>[2] = {}) =>
  suggestReconciliations(ctx, worker(), { max: 50, ...options });
const suggestionsOf = (caseId: string) =>
  db.reconciliationSuggestion.findMany({ where: { caseId }, orderBy: { confidence: "desc" } });
const searchesOf = (caseId: string) =>
  db.auditEvent.findMany({ where: { caseId, kind: SUGGESTION_AUDIT_KIND }, orderBy: { id: "asc" } });
const evidenceOf = (event: { evidence: unknown } | undefined) => (event?.evidence ?? {}) as Record<string, unknown>;

describe("reconciliation suggestions", () => {
  it("ranks the job whose request fingerprint matches first; unrelated jobs rank lower or not at all", async () => {
    const submittedAt = freshTime();
    const input = inputFor("match");
    const caseId = await uncertainCase({ provider: "replicate", model: REPLICATE_MODEL, input, submittedAt });
    const at = (offsetMs: number) => submittedAt.getTime() + offsetMs;
    const match = sim.state.seedJob({ provider: "replicate", model: REPLICATE_MODEL, input, createdAt: at(5_000) });
    const sameModel = sim.state.seedJob({
      provider: "replicate",
      model: REPLICATE_MODEL,
      input: inputFor("other request"),
      createdAt: at(4 * MINUTE),
    });
    const otherModel = sim.state.seedJob({
      provider: "replicate",
      model: "someone/else",
      input: inputFor("other model"),
      createdAt: at(10_000),
    });
    const outside = sim.state.seedJob({
      provider: "replicate",
      model: REPLICATE_MODEL,
      input,
      createdAt: at(SUGGESTION_WINDOW_MS + MINUTE),
    });
    const before = await db.case.findUniqueOrThrow({ where: { id: caseId } });

    const result = await suggest();
    expect(result.searched).toBeGreaterThanOrEqual(1);

    const rows = await suggestionsOf(caseId);
    expect(rows.map((r) => r.providerJobId)).toEqual([match.id, sameModel.id]);
    expect(rows[0]).toMatchObject({ confidence: 100, status: "open", episode: 1, providerStatus: "succeeded" });
    expect(rows[0]?.matched).toEqual(["fingerprint", "model", "submitted_within_60s"]);
    expect(rows[1]?.matched).toEqual(["model"]);
    expect(rows[1]?.confidence).toBeLessThan(rows[0]?.confidence ?? 0);
    const ids = rows.map((r) => r.providerJobId);
    expect(ids).not.toContain(otherModel.id);
    expect(ids).not.toContain(outside.id);

    // Nothing attached, nothing moved.
    const after = await db.case.findUniqueOrThrow({ where: { id: caseId } });
    expect(after).toMatchObject({
      stage: "submission_uncertain",
      state: "parked",
      providerJobId: null,
      version: before.version,
    });
    expect((await db.attempt.findUniqueOrThrow({ where: { id: after.attemptRef } })).providerJobId).toBeNull();
    expect(await db.decision.count({ where: { caseId } })).toBe(0);

    const searches = await searchesOf(caseId);
    expect(searches).toHaveLength(1);
    expect(searches[0]?.actorKind).toBe("worker");
    expect(evidenceOf(searches[0])).toMatchObject({ count: 2, conclusive: true });

    // The provider's copy of the request is only fingerprinted, never stored.
    expect(await dumpAllRows(db)).not.toContain("a lighthouse at dusk");
    expect(sim.state.stats().creates).toEqual({ ...byProvider(() => 0), total: 0 });

    // The detail the case page reads carries them.
    const reviewer = await makeUser(db, ["reviewer"]);
    const detail = await getCase(db, reviewer, caseId, env());
    expect(detail.suggestions.map((s) => s.providerJobId)).toEqual([match.id, sameModel.id]);
    expect(detail.suggestions[0]).toMatchObject({ confidence: 100, status: "open" });
  });

  it("searching again does not duplicate suggestions; a conclusive search is not repeated", async () => {
    // Submitted five minutes ago: the window is still open, so the first search is not conclusive.
    const submittedAt = new Date(Date.now() - 5 * MINUTE);
    const input = inputFor("again");
    const caseId = await uncertainCase({ provider: "replicate", model: REPLICATE_MODEL, input, submittedAt });
    const job = sim.state.seedJob({
      provider: "replicate",
      model: REPLICATE_MODEL,
      input,
      createdAt: submittedAt.getTime() + 2_000,
    });

    await suggest();
    const first = await suggestionsOf(caseId);
    expect(first.map((r) => r.providerJobId)).toEqual([job.id]);
    expect(evidenceOf((await searchesOf(caseId))[0])).toMatchObject({ conclusive: false, count: 1 });

    // Right away: not due again.
    await suggest();
    expect(await searchesOf(caseId)).toHaveLength(1);

    // Eleven minutes later the window has closed: one more search, same rows.
    await suggest({ now: new Date(Date.now() + 11 * MINUTE) });
    const searches = await searchesOf(caseId);
    expect(searches).toHaveLength(2);
    expect(evidenceOf(searches[1])).toMatchObject({ conclusive: true, count: 1 });
    const second = await suggestionsOf(caseId);
    expect(second.map((r) => r.id)).toEqual(first.map((r) => r.id));

    // Concluded: later ticks leave it alone.
    await suggest({ now: new Date(Date.now() + 60 * MINUTE) });
    expect(await searchesOf(caseId)).toHaveLength(2);
    expect(await db.reconciliationSuggestion.count({ where: { caseId } })).toBe(1);
    expect(sim.state.stats().creates.total).toBe(0);
  });

  it("fal is searched per endpoint with the case's model", async () => {
    const submittedAt = freshTime();
    const input = inputFor("fal");
    const caseId = await uncertainCase({ provider: "fal", model: FAL_MODEL, input, submittedAt });
    const match = sim.state.seedJob({
      provider: "fal",
      model: FAL_MODEL,
      input,
      createdAt: submittedAt.getTime() + 20_000,
    });
    sim.state.seedJob({ provider: "fal", model: "fal-ai/other", input, createdAt: submittedAt.getTime() + 1_000 });

    await suggest();
    const rows = await suggestionsOf(caseId);
    expect(rows.map((r) => r.providerJobId)).toEqual([match.id]);
    expect(rows[0]?.matched).toEqual(["fingerprint", "model", "submitted_within_60s"]);
    const listed = sim.state.requests().filter((r) => r.path.includes("by-endpoint"));
    expect(listed.some((r) => r.query.includes(encodeURIComponent(FAL_MODEL)))).toBe(true);
    expect(sim.state.stats().creates.total).toBe(0);
  });

  it("an unknown listing stores nothing and says so in the audit evidence", async () => {
    const submittedAt = freshTime();
    const input = inputFor("unknown");
    const caseId = await uncertainCase({ provider: "replicate", model: REPLICATE_MODEL, input, submittedAt });
    sim.state.seedJob({ provider: "replicate", model: REPLICATE_MODEL, input, createdAt: submittedAt.getTime() });
    sim.state.faults.add({
      match: { provider: "replicate", route: "list" },
      fault: { type: "http_error", status: 503 },
    });

    await suggest();
    expect(await suggestionsOf(caseId)).toHaveLength(0);
    const evidence = evidenceOf((await searchesOf(caseId))[0]);
    expect(evidence).toMatchObject({ count: 0, conclusive: false });
    expect(evidence.lookups).toEqual([expect.objectContaining({ source: "list", outcome: "unknown" })]);
    expect(String(evidence.note)).toContain("absence proves nothing");
  });

  it("an incomplete listing (page bound reached) stores nothing either", async () => {
    const submittedAt = freshTime();
    const input = inputFor("incomplete");
    const caseId = await uncertainCase({ provider: "replicate", model: REPLICATE_MODEL, input, submittedAt });
    for (let i = 0; i < 12; i++) {
      sim.state.seedJob({
        provider: "replicate",
        model: REPLICATE_MODEL,
        input: i === 0 ? input : inputFor(`filler ${i}`),
        createdAt: submittedAt.getTime() + i * 1_000,
      });
    }
    sim.state.listPageSize = 1;

    await suggest();
    expect(await suggestionsOf(caseId)).toHaveLength(0);
    const evidence = evidenceOf((await searchesOf(caseId))[0]);
    expect(evidence).toMatchObject({ count: 0, conclusive: false });
    expect(evidence.lookups).toEqual([expect.objectContaining({ outcome: "incomplete" })]);
  });

  it("a job already recorded on another attempt is not offered again", async () => {
    const submittedAt = freshTime();
    const input = inputFor("taken");
    const taken = sim.state.seedJob({
      provider: "replicate",
      model: REPLICATE_MODEL,
      input,
      createdAt: submittedAt.getTime() + 1_000,
    });
    const owner = await parkCase(
      db,
      shop,
      parkInput("polling", { provider: "replicate", model: REPLICATE_MODEL, providerJobId: taken.id }),
    );
    const caseId = await uncertainCase({ provider: "replicate", model: REPLICATE_MODEL, input, submittedAt });

    await suggest();
    expect(await suggestionsOf(caseId)).toHaveLength(0);
    // The search says whose the job is, so a reviewer can look there.
    expect(evidenceOf((await searchesOf(caseId))[0])).toMatchObject({
      alreadyAttributed: 1,
      count: 0,
      attributedTo: [{ providerJobId: taken.id, caseId: owner.caseId }],
    });
  });

  it("only a worker searches", async () => {
    const reviewer = await makeUser(db, ["reviewer"]);
    const error = await suggestReconciliations(ctx, reviewer).catch((e: unknown) => e);
    expect((error as AppError).code).toBe("forbidden");
  });

  it("a worker tick with nothing to execute still produces suggestions", async () => {
    const submittedAt = freshTime();
    const input = inputFor("tick");
    const caseId = await uncertainCase({ provider: "replicate", model: REPLICATE_MODEL, input, submittedAt });
    const job = sim.state.seedJob({
      provider: "replicate",
      model: REPLICATE_MODEL,
      input,
      createdAt: submittedAt.getTime() - 30_000,
    });
    const tick = await runTick(ctx, worker(), { maxTasks: 5 });
    expect(tick.claimed).toBe(0);
    const rows = await suggestionsOf(caseId);
    expect(rows.map((r) => r.providerJobId)).toEqual([job.id]);
    expect((await db.case.findUniqueOrThrow({ where: { id: caseId } })).stage).toBe("submission_uncertain");
    expect(sim.state.stats().creates.total).toBe(0);
  });

  it("confirming a suggestion attaches the job and marks it confirmed, the others dismissed", async () => {
    const submittedAt = freshTime();
    const input = inputFor("confirm");
    const caseId = await uncertainCase({ provider: "replicate", model: REPLICATE_MODEL, input, submittedAt });
    const match = sim.state.seedJob({
      provider: "replicate",
      model: REPLICATE_MODEL,
      input,
      createdAt: submittedAt.getTime() + 3_000,
    });
    sim.state.seedJob({
      provider: "replicate",
      model: REPLICATE_MODEL,
      input: inputFor("other"),
      createdAt: submittedAt.getTime() + 30_000,
    });
    await suggest();
    const [best, other] = await suggestionsOf(caseId);
    if (!best || !other) throw new Error("expected two suggestions");
    expect(best.providerJobId).toBe(match.id);

    const operator = await makeUser(db, ["operator"]);
    const refused = await confirmSuggestion(db, operator, caseId, { suggestionId: best.id, evidence: "x" }).catch(
      (e: unknown) => e,
    );
    expect((refused as AppError).code).toBe("forbidden");

    const reviewer = await makeUser(db, ["reviewer"]);
    const result = await confirmSuggestion(db, reviewer, caseId, {
      suggestionId: best.id,
      evidence: "Matched by: fingerprint, model, submitted_within_60s",
    });
    expect(result).toMatchObject({ stage: "polling", providerJobId: match.id });

    const row = await db.case.findUniqueOrThrow({ where: { id: caseId } });
    expect(row).toMatchObject({ stage: "polling", state: "parked", providerJobId: match.id });
    expect((await db.attempt.findUniqueOrThrow({ where: { id: row.attemptRef } })).providerJobId).toBe(match.id);
    expect((await db.reconciliationSuggestion.findUniqueOrThrow({ where: { id: best.id } })).status).toBe("confirmed");
    expect((await db.reconciliationSuggestion.findUniqueOrThrow({ where: { id: other.id } })).status).toBe("dismissed");
    const kinds = (await db.auditEvent.findMany({ where: { caseId }, orderBy: { id: "asc" } })).map((e) => e.kind);
    expect(kinds).toEqual(expect.arrayContaining(["reconciled_job_found", "reconciliation_suggestion_confirmed"]));
    expect(await db.decision.count({ where: { caseId, kind: "reconcile_attach" } })).toBe(1);

    // A second confirmation is refused and changes nothing.
    const again = await confirmSuggestion(db, reviewer, caseId, { suggestionId: other.id, evidence: "x" }).catch(
      (e: unknown) => e,
    );
    expect(again).toBeInstanceOf(AppError);
    expect((await db.case.findUniqueOrThrow({ where: { id: caseId } })).providerJobId).toBe(match.id);

    // No longer uncertain: no further searches.
    const searches = (await searchesOf(caseId)).length;
    await suggest({ now: new Date(Date.now() + 60 * MINUTE) });
    expect(await searchesOf(caseId)).toHaveLength(searches);
    expect(sim.state.stats().creates.total).toBe(0);
  });

  it("attaching a suggestion and checking its status is one step with two decisions and their audit rows", async () => {
    const submittedAt = freshTime();
    const input = inputFor("attach-and-check");
    const caseId = await uncertainCase({ provider: "replicate", model: REPLICATE_MODEL, input, submittedAt });
    const match = sim.state.seedJob({
      provider: "replicate",
      model: REPLICATE_MODEL,
      input,
      createdAt: submittedAt.getTime(),
    });
    await suggest();
    const [best] = await suggestionsOf(caseId);
    if (!best) throw new Error("expected a suggestion");

    const reviewer = await makeUser(db, ["reviewer"]);
    const evidence = "Matched by: fingerprint, model (confidence 100%).";
    const result = await confirmSuggestion(db, reviewer, caseId, { suggestionId: best.id, evidence, check: true });
    expect(result).toMatchObject({ stage: "polling", state: "ready", providerJobId: match.id });
    const row = await db.case.findUniqueOrThrow({ where: { id: caseId } });
    expect(row).toMatchObject({ stage: "polling", state: "ready", providerJobId: match.id });
    const decisions = await db.decision.findMany({ where: { caseId } });
    expect(decisions.map((d) => `${d.kind}: ${d.evidence}`).sort()).toEqual([
      `approve: ${evidence}`,
      `reconcile_attach: ${evidence}`,
    ]);
    const action = await db.recoveryAction.findFirstOrThrow({ where: { caseId } });
    expect({ kind: action.kind, status: action.status }).toEqual({ kind: "resume_poll", status: "ready" });
    const kinds = (await db.auditEvent.findMany({ where: { caseId }, orderBy: { id: "asc" } })).map((e) => e.kind);
    expect(kinds).toEqual(
      expect.arrayContaining(["reconciled_job_found", "approved", "reconciliation_suggestion_confirmed"]),
    );
    expect(sim.state.stats().creates.total).toBe(0);
  });

  it("a refused attachment leaves the suggestion open", async () => {
    const submittedAt = freshTime();
    const input = inputFor("refused");
    const caseId = await uncertainCase({ provider: "replicate", model: REPLICATE_MODEL, input, submittedAt });
    sim.state.seedJob({ provider: "replicate", model: REPLICATE_MODEL, input, createdAt: submittedAt.getTime() });
    await suggest();
    const [suggestion] = await suggestionsOf(caseId);
    if (!suggestion) throw new Error("expected a suggestion");
    const reviewer = await makeUser(db, ["reviewer"]);
    // The case moved on before the reviewer clicked: the attachment is refused.
    await db.case.update({ where: { id: caseId }, data: { state: "resolved" } });
    const error = await confirmSuggestion(db, reviewer, caseId, { suggestionId: suggestion.id, evidence: "x" }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeDefined();
    expect((await db.reconciliationSuggestion.findUniqueOrThrow({ where: { id: suggestion.id } })).status).toBe("open");
  });
});
