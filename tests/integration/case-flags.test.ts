import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STAGES, type Stage } from "@/lib/domain/stages";
import { env } from "@/lib/env";
import type { Family } from "@/lib/metrics/figures";
import { acceptFailure } from "@/lib/services/case/accept-failure";
import { approveCase } from "@/lib/services/case/approve-case";
import { escalateOverdueCases } from "@/lib/services/case/escalate-overdue-cases";
import { getCase } from "@/lib/services/case/get-case";
import { listCases } from "@/lib/services/case/list-cases";
import { parkCase } from "@/lib/services/case/park-case";
import { listHolds } from "@/lib/services/hold/list-holds";
import { resolveHold } from "@/lib/services/hold/resolve-hold";
import { metricsSnapshot } from "@/lib/services/overview/metrics-snapshot";
import { overviewStats } from "@/lib/services/overview/overview-stats";
import { listCasesSchema } from "@/lib/validation/list-cases";
import { runTick } from "@/lib/worker/run-tick";
import type { WorkerContext } from "@/lib/worker/worker-context";
import { type RunningSimulator, startSimulator } from "@/verification/simulator";
import { makeUser, parkInput, producer, worker } from "./fixtures";
import { testWorkerContext } from "./helpers/worker-context";
import { openTestDb } from "./setup/test-db";

// Rule 13: a case past its deadline is escalated (flag, audit, metric, overview; never released),
// and a resolved case still holding money is shown to finance, the overview and the queue until
// finance decides its hold.
process.env.WORKER_LOG = "0";
const { db } = openTestDb();
const shop = producer("flags-shop");
const past = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
const future = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();
const overview = (actor: Parameters<typeof overviewStats>[1]) =>
  overviewStats(db, actor, { alertWindowMinutes: 60, alertThreshold: 1_000 });
const sample = (families: Family[], name: string, labels: Record<string, string> = {}) =>
  families
    .find((f) => f.name === name)
    ?.samples.find((s) => Object.entries(labels).every(([k, v]) => s.labels?.[k] === v))?.value;

describe("deadlines", () => {
  it("escalates an overdue case exactly once across concurrent sweeps, and never touches its money", async () => {
    const overdue = [];
    for (let i = 0; i < 12; i++) {
      const stage = STAGES[i % STAGES.length] as Stage;
      const { caseId } = await parkCase(db, shop, parkInput(stage, { retryDeadline: past(5 + i) }));
      overdue.push(caseId);
    }
    const notYet = (await parkCase(db, shop, parkInput("polling", { retryDeadline: future(30) }))).caseId;
    const noDeadline = (await parkCase(db, shop, parkInput("polling"))).caseId;
    const resolvedInput = parkInput("generation_failed", { retryDeadline: past(60) });
    const resolved = (await parkCase(db, shop, resolvedInput)).caseId;
    const reviewer = await makeUser(db, ["reviewer", "operator", "finance"]);
    await acceptFailure(db, reviewer, resolved, { evidence: "provider says failed" });
    const before = await db.case.findMany({ where: { id: { in: overdue } }, orderBy: { id: "asc" } });

    // Four sweeps at once, each allowed more than its share: every case is taken by exactly one.
    // They sweep past the settling period an uncertain submission waits out first (decision 061).
    const later = new Date(Date.now() + 16 * 60_000);
    const counts = await Promise.all([1, 2, 3, 4].map(() => escalateOverdueCases(db, worker(), 8, later)));
    expect(counts.reduce((a, b) => a + b, 0)).toBe(12);
    expect(await escalateOverdueCases(db, worker(), 200, later)).toBe(0);

    const after = await db.case.findMany({ where: { id: { in: overdue } }, orderBy: { id: "asc" } });
    for (const [i, row] of after.entries()) {
      const was = before[i];
      expect(row.escalatedAt).not.toBeNull();
      expect(row.escalationReason).toBe(
        row.stage === "submission_uncertain" ? "submit_deadline_passed" : "retry_deadline_passed",
      );
      // A flag only: same state, stage, version and money as before.
      expect({ state: row.state, stage: row.stage, version: row.version, held: row.heldMicros }).toEqual({
        state: was?.state,
        stage: was?.stage,
        version: was?.version,
        held: was?.heldMicros,
      });
    }
    const audits = await db.auditEvent.findMany({ where: { kind: "deadline_escalated" } });
    expect(audits.map((a) => a.caseId).sort()).toEqual([...overdue].sort());
    expect(audits.every((a) => a.actorKind === "worker")).toBe(true);
    const holds = await db.hold.findMany({ where: { caseId: { in: overdue } } });
    expect(holds.map((h) => h.status)).toEqual(holds.map(() => "held"));
    const entries = await db.ledgerEntry.findMany({ where: { holdRef: { in: holds.map((h) => h.id) } } });
    expect(entries.map((e) => e.kind)).toEqual(entries.map(() => "reserve"));

    for (const id of [notYet, noDeadline, resolved]) {
      expect((await db.case.findUniqueOrThrow({ where: { id } })).escalatedAt).toBeNull();
    }

    const stats = await overview(reviewer);
    expect(stats.escalatedOpen).toBe(12);
    const families = await metricsSnapshot(db);
    expect(sample(families, "recovery_escalated_open_cases")).toBe(12);
    expect(sample(families, "recovery_deadline_escalations_total")).toBe(12);
    const queue = await listCases(db, reviewer, listCasesSchema.parse({ flag: "escalated", limit: 50 }));
    expect(queue.items.map((c) => c.id).sort()).toEqual([...overdue].sort());
    expect(queue.items.every((c) => c.escalationReason !== null)).toBe(true);
    const detail = await getCase(db, reviewer, overdue[1] ?? "", env());
    expect(detail.escalation?.reason).toBe("retry_deadline_passed");
  });

  it("runs from the worker tick, and a new episode starts unescalated", async () => {
    const input = parkInput("generation_failed", { retryDeadline: past(10) });
    const { caseId } = await parkCase(db, shop, input);
    const tick = await runTick(quietContext(), worker(), { maxTasks: 1 });
    expect(tick.escalated).toBe(1);
    const reviewer = await makeUser(db, ["reviewer"]);
    await acceptFailure(db, reviewer, caseId, { evidence: "accepted" });
    await parkCase(db, shop, {
      ...input,
      attemptId: `${input.attemptId}-2`,
      retryDeadline: future(60),
      hold: { ...input.hold, holdId: `${input.hold.holdId}-2` },
    });
    const row = await db.case.findUniqueOrThrow({ where: { id: caseId } });
    expect({ episode: row.episode, escalatedAt: row.escalatedAt, reason: row.escalationReason }).toEqual({
      episode: 2,
      escalatedAt: null,
      reason: null,
    });
  });
});

let sim: RunningSimulator;
let ctx: WorkerContext;
beforeAll(async () => {
  sim = await startSimulator({ port: 0, timings: { queuedMs: 0, runningMs: 0, outputBytes: 16 * 1024 } });
  ctx = await testWorkerContext(db, sim.url);
});
afterAll(() => sim?.stop());
const quietContext = () => ctx;

describe("held money on closed cases", () => {
  it("shows a delivered case whose hold is still held until finance settles it", async () => {
    const seeded = sim.state.seedJob({ provider: "replicate", outcome: "succeeded" });
    const input = parkInput("delivery", { provider: seeded.provider, model: seeded.model, providerJobId: seeded.id });
    const { caseId } = await parkCase(db, shop, {
      ...input,
      hold: { ...input.hold, amountMicros: 3_000_000, currency: "CHF" },
    });
    const reviewer = await makeUser(db, ["reviewer"]);
    const finance = await makeUser(db, ["finance", "operator"]);
    await approveCase(db, reviewer, caseId, { action: "retry_delivery", evidence: "copy it again" });
    const tick = await runTick(ctx, worker(), { maxTasks: 5 });
    expect(tick.results.find((r) => r.caseId === caseId)?.outcome).toBe("resolved");
    const hold = await db.hold.findFirstOrThrow({ where: { caseId } });
    expect(hold.status).toBe("held");

    const flagged = { currency: "CHF", count: 1, micros: "3000000" };
    expect((await overview(finance)).needsDecision).toContainEqual(flagged);
    const families = await metricsSnapshot(db);
    expect(sample(families, "recovery_resolved_hold_open_cases", { currency: "CHF" })).toBe(1);
    expect(sample(families, "recovery_resolved_hold_open_micros", { currency: "CHF" })).toBe(3_000_000);
    const list = await listHolds(db, finance, { status: "held", view: "needs_decision", limit: 50 });
    expect(list.items.map((h) => [h.id, h.amountMicros, h.currency, h.needsDecision])).toContainEqual([
      hold.id,
      3_000_000,
      "CHF",
      true,
    ]);
    const queue = await listCases(db, finance, listCasesSchema.parse({ flag: "hold_open" }));
    const row = queue.items.find((c) => c.id === caseId);
    expect(row).toMatchObject({ state: "resolved", holdOpen: true, heldMicros: 3_000_000, currency: "CHF" });
    expect((await getCase(db, finance, caseId, env())).holdOpen).toBe(true);

    await resolveHold(db, finance, hold.id, {
      kind: "settle",
      chargeMicros: 3_000_000,
      note: "invoice 42",
      evidence: "provider usage export",
    });
    expect((await overview(finance)).needsDecision.find((r) => r.currency === "CHF")).toBeUndefined();
    const after = await metricsSnapshot(db);
    expect(sample(after, "recovery_resolved_hold_open_cases", { currency: "CHF" })).toBeUndefined();
    const listAfter = await listHolds(db, finance, { status: "held", view: "needs_decision", limit: 50 });
    expect(listAfter.items.map((h) => h.id)).not.toContain(hold.id);
    const queueAfter = await listCases(db, finance, listCasesSchema.parse({ flag: "hold_open" }));
    expect(queueAfter.items.map((c) => c.id)).not.toContain(caseId);
  });

  it("lists only held holds of resolved cases, never an open case's hold", async () => {
    const finance = await makeUser(db, ["finance", "operator", "reviewer"]);
    const open = await parkCase(
      db,
      shop,
      parkInput("generation_failed", { hold: { holdId: "h-open", amountMicros: 5, currency: "SEK" } }),
    );
    const closed = await parkCase(
      db,
      shop,
      parkInput("generation_failed", { hold: { holdId: "h-closed", amountMicros: 7, currency: "SEK" } }),
    );
    await acceptFailure(db, finance, closed.caseId, { evidence: "failed for good" });
    const list = await listHolds(db, finance, { status: "held", view: "needs_decision", limit: 50 });
    const ids = list.items.filter((h) => h.currency === "SEK").map((h) => h.caseId);
    expect(ids).toEqual([closed.caseId]);
    expect(ids).not.toContain(open.caseId);
    expect((await overview(finance)).needsDecision).toContainEqual({ currency: "SEK", count: 1, micros: "7" });

    // Page by page, one case at a time: every such hold once, and nothing else.
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await listHolds(db, finance, { status: "held", view: "needs_decision", limit: 1, cursor });
      seen.push(...page.items.map((h) => h.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    const expected = await db.$queryRaw<{ id: string }[]>`
      SELECT h.id FROM holds h JOIN cases c ON c.id = h.case_id WHERE c.state = 'resolved' AND h.status = 'held'`;
    expect(seen.length).toBeGreaterThan(1);
    expect([...seen].sort()).toEqual(expected.map((row) => row.id).sort());
  });
});
