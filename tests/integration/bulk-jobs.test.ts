import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import type { BulkAction } from "@/lib/domain/bulk-verbs";
import type { Stage } from "@/lib/domain/stages";
import type { UserActor } from "@/lib/services/access/actor";
import { dryRunHoldBulk, startHoldBulkJob } from "@/lib/services/bulk-job/bulk-holds";
import { cancelBulkJob } from "@/lib/services/bulk-job/cancel-bulk-job";
import { getBulkJob } from "@/lib/services/bulk-job/read-bulk-job";
import { runBulkJobRound } from "@/lib/services/bulk-job/run-bulk-jobs";
import { startCaseBulkJob } from "@/lib/services/bulk-job/start-case-bulk-job";
import { acceptFailure } from "@/lib/services/case/accept-failure";
import { dryRunBulk } from "@/lib/services/case/bulk-cases";
import { parkCase } from "@/lib/services/case/park-case";
import { resolveHold } from "@/lib/services/hold/resolve-hold";
import type { BulkTarget } from "@/lib/validation/bulk";
import { makeUser, parkInput, producer } from "./fixtures";
import { openTestDb } from "./setup/test-db";

// Decision 065: a confirmed bulk action is a job worked through in paced batches, cancellable,
// audited at start, cancel and finish; each item still goes through its single-case service.
process.env.WORKER_LOG = "0";
const { db } = openTestDb();
const shop = producer("bulk-jobs-shop");

let reviewer: UserActor;
let finance: UserActor;

beforeAll(async () => {
  reviewer = await makeUser(db, ["reviewer"]);
  finance = await makeUser(db, ["finance"]);
});

async function parkSet(stages: Stage[]) {
  const model = `job-${randomUUID().slice(0, 8)}`;
  const ids: string[] = [];
  for (const stage of stages) ids.push(String((await parkCase(db, shop, parkInput(stage, { model }))).caseId));
  return { ids, target: { kind: "filter", filter: { model } } as BulkTarget };
}

/** A round far enough ahead that every job's pause has passed: the clock is driven, not waited for. */
let clock = Date.now();
const round = () => {
  clock += 3_600_000;
  return runBulkJobRound(db, { now: new Date(clock) });
};

async function startEscalation(count: number, pace: "steady" | "gentle" | "one_a_minute") {
  const { ids, target } = await parkSet(Array.from({ length: count }, () => "polling" as const));
  const action: BulkAction = { verb: "escalate", evidence: "provider incident" };
  const preview = await dryRunBulk(db, reviewer, { mode: "dry_run", action, target });
  const request = { mode: "execute" as const, action, target, token: preview.token };
  const { jobId } = await startCaseBulkJob(db, reviewer, { ...request, pace });
  return { ids, jobId, request };
}

const escalations = (ids: string[]) => db.auditEvent.count({ where: { caseId: { in: ids }, kind: "escalated" } });
const jobAudit = (jobId: string) =>
  db.auditEvent.findMany({
    where: { kind: { startsWith: "bulk_job_" }, after: { path: ["jobId"], equals: jobId } },
    orderBy: { id: "asc" },
  });

/**
 * The statements `runBulkJobRound` sends, recorded at the boundary it is given (a real database
 * behind it): the raw statements by their text, each model call by its name.
 */
function recording(): { db: typeof db; statements: string[] } {
  const statements: string[] = [];
  const text = (args: unknown[]) => {
    const first = args[0] as { sql?: string } | readonly string[];
    return "sql" in first && typeof first.sql === "string" ? first.sql : (first as readonly string[]).join("?");
  };
  const wrapped = new Proxy(db, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target) as unknown;
      if (typeof prop === "string" && prop.startsWith("$") && typeof value === "function")
        return (...args: unknown[]) => {
          if (/^\$(query|execute)Raw/.test(prop)) statements.push(text(args));
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      if (typeof prop === "string" && !prop.startsWith("$") && value && typeof value === "object")
        statements.push(`model ${prop}`);
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { db: wrapped, statements };
}

describe("the idle bulk round", () => {
  // Decision 070: every console process rounds every second; with no job due it must not claim.
  it("asks one read-only question and runs no claim while no job is due, and claims once one is", async () => {
    expect(await db.bulkJob.count({ where: { state: "running" } })).toBe(0);
    const idle = recording();
    expect(await runBulkJobRound(idle.db, { now: new Date(clock) })).toBe(0);
    expect(idle.statements).toHaveLength(1);
    expect(idle.statements[0]).toMatch(/^\s*SELECT EXISTS/);
    expect(idle.statements.join("\n")).not.toMatch(/UPDATE\s+bulk_jobs/);

    const { jobId } = await startEscalation(1, "gentle");
    clock += 3_600_000;
    const busy = recording();
    expect(await runBulkJobRound(busy.db, { now: new Date(clock) })).toBe(1);
    expect(busy.statements.join("\n")).toMatch(/UPDATE\s+bulk_jobs/);
    expect(await getBulkJob(db, reviewer, jobId)).toMatchObject({ state: "finished", done: 1 });
  });
});

describe("bulk jobs", () => {
  it("works through a job in batches of its pace, each case with its own audit row, then finishes it", async () => {
    const { ids, jobId } = await startEscalation(7, "gentle");
    expect(await getBulkJob(db, reviewer, jobId)).toMatchObject({ state: "running", planned: 7, done: 0 });
    await round();
    expect(await getBulkJob(db, reviewer, jobId)).toMatchObject({ state: "running", done: 5 });
    expect(await escalations(ids)).toBe(5);
    await round();
    expect(await getBulkJob(db, reviewer, jobId)).toMatchObject({ state: "finished", done: 7, skipped: 0 });
    expect(await escalations(ids)).toBe(7);
    const audit = await jobAudit(jobId);
    expect(audit.map((a) => [a.kind, a.actorId])).toEqual([
      ["bulk_job_started", reviewer.userId],
      ["bulk_job_finished", reviewer.userId],
    ]);
    expect(audit[1]?.after).toMatchObject({ planned: 7, done: 7, skipped: 0, failed: 0 });
    const job = await db.bulkJob.findUniqueOrThrow({ where: { id: jobId } });
    expect(job.finishedAt).not.toBeNull();
    // Nothing left: another round takes nothing and audits nothing.
    await round();
    expect(await jobAudit(jobId)).toHaveLength(2);
  });

  it("stops at a cancel: what was done stays done, the rest is never taken, and the counts add up", async () => {
    const { ids, jobId } = await startEscalation(4, "one_a_minute");
    await round();
    const cancelled = await cancelBulkJob(db, reviewer, jobId);
    expect(cancelled.state).toBe("cancelled");
    await round();
    await round();
    const job = await getBulkJob(db, reviewer, jobId);
    expect(job).toMatchObject({ state: "cancelled", planned: 4, done: 1, skipped: 0, failed: 0 });
    expect(await escalations(ids)).toBe(1);
    expect(await db.bulkJobItem.count({ where: { jobId, outcome: null } })).toBe(3);
    const audit = await jobAudit(jobId);
    expect(audit.map((a) => a.kind)).toEqual(["bulk_job_started", "bulk_job_cancelled"]);
    expect(audit[1]).toMatchObject({ actorId: reviewer.userId });
    await expect(cancelBulkJob(db, reviewer, jobId)).rejects.toMatchObject({ code: "conflict" });
  });

  it("refuses a stale, reused or someone else's dry run before any job exists, and hides a job from others", async () => {
    const { jobId, request } = await startEscalation(1, "steady");
    await expect(startCaseBulkJob(db, reviewer, { ...request, pace: "steady" })).rejects.toMatchObject({
      code: "bulk_preview_expired",
    });
    const other = await makeUser(db, ["reviewer"]);
    await expect(getBulkJob(db, other, jobId)).rejects.toMatchObject({ code: "not_found" });
    await expect(cancelBulkJob(db, other, jobId)).rejects.toMatchObject({ code: "not_found" });
    const { target } = await parkSet(["polling"]);
    const action: BulkAction = { verb: "escalate", evidence: "x" };
    const preview = await dryRunBulk(db, reviewer, { mode: "dry_run", action, target });
    await db.bulkPreview.updateMany({
      where: { userId: reviewer.userId, usedAt: null },
      data: { expiresAt: new Date(0) },
    });
    const before = await db.bulkJob.count();
    await expect(
      startCaseBulkJob(db, reviewer, { mode: "execute", action, target, token: preview.token, pace: "steady" }),
    ).rejects.toMatchObject({ code: "bulk_preview_expired" });
    expect(await db.bulkJob.count()).toBe(before);
  });

  it("skips a case that changed after the dry run, as the synchronous execution does", async () => {
    const { ids, jobId } = await startEscalation(2, "steady");
    await db.case.update({ where: { id: String(ids[0]) }, data: { version: { increment: 1 } } });
    await round();
    const job = await getBulkJob(db, reviewer, jobId);
    expect(job).toMatchObject({ state: "finished", done: 1, skipped: 1 });
    expect(job.skips.find((s) => s.at === "execute")?.code).toBe("changed_since_preview");
  });
});

describe("finance bulk settle and release of resolved cases' open holds", () => {
  /** A resolved case whose hold is still open: a failed generation whose failure was accepted. */
  async function resolvedFailed(model: string) {
    const { caseId } = await parkCase(db, shop, parkInput("generation_failed", { model }));
    await acceptFailure(db, reviewer, String(caseId), { evidence: "provider says failed" });
    return db.hold.findFirstOrThrow({ where: { caseId: String(caseId) } });
  }

  /** A resolved case whose job the provider completed (delivered), its hold still open. */
  async function resolvedDelivered(model: string) {
    const { caseId } = await parkCase(db, shop, parkInput("delivery", { model }));
    await db.$executeRaw`UPDATE cases SET state = 'resolved', resolved_at = now() WHERE id = ${String(caseId)}::uuid`;
    return db.hold.findFirstOrThrow({ where: { caseId: String(caseId) } });
  }

  it("settles completed jobs' holds in full through the money writer, skipping unknown outcomes and failures", async () => {
    const model = `fin-${randomUUID().slice(0, 8)}`;
    const delivered = await resolvedDelivered(model);
    const failed = await resolvedFailed(model);
    const inFlight = await resolvedFailed(model);
    // Its send is in flight under a permit that never parked: the provider may still charge (rule 18).
    const attempt = await db.attempt.findUniqueOrThrow({ where: { id: inFlight.attemptRef } });
    await db.sendPermit.create({
      data: {
        producer: inFlight.producer,
        operationRef: attempt.operationRef,
        attemptRef: inFlight.attemptRef,
        holdRef: inFlight.id,
        token: 99,
        status: "live",
        sendDeadline: new Date(Date.now() + 3_600_000),
      },
    });
    const action = { verb: "settle" as const, note: "month end", evidence: "provider invoice INV-7" };
    const target = { kind: "needs_decision" as const };
    await expect(dryRunHoldBulk(db, reviewer, { action, target })).rejects.toMatchObject({ code: "forbidden" });
    const preview = await dryRunHoldBulk(db, finance, { action, target });
    const mine = (id: string) => preview.holds.some((h) => h.holdRef === id);
    expect(mine(delivered.id)).toBe(true);
    expect(mine(failed.id) || mine(inFlight.id)).toBe(false);
    const skipCode = (caseId: string | null) => preview.skipped.find((s) => s.caseId === caseId)?.code;
    expect(skipCode(inFlight.caseId)).toBe("send_outcome_unknown");
    expect(skipCode(failed.caseId)).toBe("nothing_completed");

    const { jobId } = await startHoldBulkJob(db, finance, { action, target, token: preview.token, pace: "steady" });
    await round();
    const job = await getBulkJob(db, finance, jobId);
    expect(job).toMatchObject({ state: "finished", kind: "holds", failed: 0 });
    expect(job.done).toBe(preview.willAct);
    const settled = await db.hold.findUniqueOrThrow({ where: { id: delivered.id } });
    expect(settled).toMatchObject({
      status: "settled",
      settledMicros: delivered.amountMicros,
      decidedById: finance.userId,
    });
    const entries = await db.ledgerEntry.findMany({ where: { holdRef: delivered.id } });
    expect(entries.map((e) => e.kind)).toContain("settle");
    expect(await db.auditEvent.count({ where: { caseId: delivered.caseId, kind: "hold_settled" } })).toBe(1);
    for (const hold of [failed, inFlight])
      expect((await db.hold.findUniqueOrThrow({ where: { id: hold.id } })).status).toBe("held");
  });

  it("releases failed sends' holds and skips a completed one, and a hold decided meanwhile is skipped", async () => {
    const model = `rel-${randomUUID().slice(0, 8)}`;
    const failed = await resolvedFailed(model);
    const decidedMeanwhile = await resolvedFailed(model);
    const delivered = await resolvedDelivered(model);
    const action = { verb: "release" as const, note: "nothing bought", evidence: "provider status page" };
    const preview = await dryRunHoldBulk(db, finance, { action, target: { kind: "needs_decision" } });
    expect(preview.skipped.find((s) => s.caseId === delivered.caseId)?.code).toBe("send_completed");
    await resolveHold(db, finance, decidedMeanwhile.id, { kind: "release", note: "by hand", evidence: "ticket" });
    const { jobId } = await startHoldBulkJob(db, finance, {
      action,
      target: { kind: "needs_decision" },
      token: preview.token,
      pace: "steady",
    });
    await round();
    const job = await getBulkJob(db, finance, jobId);
    expect(job.state).toBe("finished");
    expect((await db.hold.findUniqueOrThrow({ where: { id: failed.id } })).status).toBe("released");
    expect((await db.hold.findUniqueOrThrow({ where: { id: delivered.id } })).status).toBe("held");
    expect(job.skips.find((s) => s.at === "execute" && s.code === "conflict")).toBeDefined();
  });
});
