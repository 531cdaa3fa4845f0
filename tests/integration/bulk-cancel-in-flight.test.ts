import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { BulkAction } from "@/lib/domain/bulk-verbs";
import type { UserActor } from "@/lib/services/access/actor";
import { cancelBulkJob } from "@/lib/services/bulk-job/cancel-bulk-job";
import { getBulkJob } from "@/lib/services/bulk-job/read-bulk-job";
import { runBulkJobRound } from "@/lib/services/bulk-job/run-bulk-jobs";
import { startCaseBulkJob } from "@/lib/services/bulk-job/start-case-bulk-job";
import { dryRunBulk } from "@/lib/services/case/bulk-cases";
import { parkCase } from "@/lib/services/case/park-case";
import type { BulkTarget } from "@/lib/validation/bulk";
import { makeUser, parkInput, producer } from "./fixtures";
import { openTestDb } from "./setup/test-db";

// Decision 065: an item marks itself inside its own transaction only while its job runs, share-locking
// the job row until it commits. A cancel arriving while an item's transaction is open therefore either
// waits for an item that has marked itself (which stays done and is counted), or, for one that has not,
// commits first and the item rolls back. Here each item is held open at a chosen point by a second
// connection's row lock, and every step waits for a lock wait to show in pg_stat_activity.
process.env.WORKER_LOG = "0";
const { db, url } = openTestDb();
const shop = producer("bulk-cancel-shop");

/**
 * The same client, whose transactions may stay open for two minutes instead of the product's 15 s:
 * here an item's transaction (and a cancel waiting behind it) is held open on purpose while the test
 * looks at the catalogue, which a heavily loaded machine can make slow. The verdict must not depend
 * on that, so only the limit changes, and only for the transactions the test holds.
 */
const HELD_TRANSACTION_MS = 120_000;
const patient = new Proxy(db, {
  get(target, property, receiver) {
    if (property !== "$transaction") return Reflect.get(target, property, receiver);
    return (work: Parameters<typeof db.$transaction>[0], options?: { timeout?: number; maxWait?: number }) =>
      target.$transaction(work as never, { ...options, timeout: HELD_TRANSACTION_MS });
  },
});

let reviewer: UserActor;
beforeAll(async () => {
  reviewer = await makeUser(db, ["reviewer"]);
});

const lockers: pg.Client[] = [];
afterEach(async () => {
  for (const locker of lockers.splice(0)) await locker.end().catch(() => {});
});

/** A second connection holding a transaction open, and its backend's pid. */
async function openLocker() {
  const locker = new pg.Client({ connectionString: url });
  lockers.push(locker);
  await locker.connect();
  const { rows } = await locker.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
  await locker.query("BEGIN");
  return { locker, pid: Number(rows[0]?.pid) };
}

type Waiter = { pid: number; query: string; blockers: number[] };

/** The sessions on this database waiting for a lock, with who blocks them. */
async function lockWaiters(): Promise<Waiter[]> {
  return db.$queryRaw<Waiter[]>`
    SELECT pid, query, pg_blocking_pids(pid) AS blockers FROM pg_stat_activity
    WHERE datname = current_database() AND wait_event_type = 'Lock' ORDER BY pid`;
}

/**
 * Waits until a session matching `which` waits for a lock (polling the catalogue, so the test moves on
 * a state it has seen, not on time passing); fails if none ever does.
 */
async function waitForLockWait(which: (waiter: Waiter) => boolean): Promise<Waiter> {
  for (let i = 0; i < 400; i++) {
    const waiter = (await lockWaiters()).find(which);
    if (waiter) return waiter;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("no session waited for that lock");
}
const blockedBy = (pid: number) => (waiter: Waiter) => waiter.blockers.includes(pid);

/** A promise's state without waiting for it. */
function tracked<T>(promise: Promise<T>) {
  const state = { settled: false };
  const done = promise.finally(() => {
    state.settled = true;
  });
  done.catch(() => {});
  return { done, state };
}

let clock = Date.now();
async function escalationJob(count: number) {
  const model = `cancel-${randomUUID().slice(0, 8)}`;
  for (let i = 0; i < count; i++) await parkCase(db, shop, parkInput("polling", { model }));
  const target: BulkTarget = { kind: "filter", filter: { model } };
  const action: BulkAction = { verb: "escalate", evidence: "provider incident" };
  const preview = await dryRunBulk(db, reviewer, { mode: "dry_run", action, target });
  const { jobId } = await startCaseBulkJob(db, reviewer, {
    mode: "execute",
    action,
    target,
    token: preview.token,
    pace: "steady",
  });
  const items = await db.bulkJobItem.findMany({ where: { jobId }, orderBy: { position: "asc" } });
  expect(items).toHaveLength(count);
  clock += 3_600_000;
  return { jobId, items, round: () => runBulkJobRound(patient, { now: new Date(clock) }) };
}

const escalated = async (caseId: string) =>
  db.auditEvent.count({ where: { caseId, kind: "escalated" } }).then((n) => n > 0);

/** Counts agree three ways: the items' rows, the job row, and the cancel's audit row. */
async function expectConsistent(jobId: string) {
  const items = await db.bulkJobItem.findMany({ where: { jobId } });
  const count = (outcome: string | null) => items.filter((i) => i.outcome === outcome).length;
  const fromItems = { done: count("done"), skipped: count("skipped"), failed: count("failed") };
  const job = await getBulkJob(db, reviewer, jobId);
  expect(job).toMatchObject({ state: "cancelled", planned: items.length, ...fromItems });
  expect(fromItems.done + fromItems.skipped + fromItems.failed + count(null)).toBe(job.planned);
  const audit = await db.auditEvent.findMany({
    where: { kind: "bulk_job_cancelled", after: { path: ["jobId"], equals: jobId } },
  });
  expect(audit).toHaveLength(1);
  expect(audit[0]?.after).toMatchObject(fromItems);
  // Every item marked done is a case acted on, and no case was acted on without its item marked.
  for (const item of items) expect(await escalated(item.refId)).toBe(item.outcome === "done");
  return fromItems;
}

describe("a cancel arriving while a bulk item's transaction is open", () => {
  it("waits for an item that has marked itself: that item stays done and is counted, the next is never run", async () => {
    const { jobId, items, round } = await escalationJob(3);
    const [, second, third] = items;
    if (!second || !third) throw new Error("expected three items");
    // The second item's mark is held just after it share-locked the job row (its own item row is
    // locked elsewhere); the third item is held before its mark, at its case row.
    const atMark = await openLocker();
    await atMark.locker.query("SELECT 1 FROM bulk_job_items WHERE job_id = $1 AND position = $2 FOR UPDATE", [
      jobId,
      second.position,
    ]);
    const beforeMark = await openLocker();
    await beforeMark.locker.query("SELECT 1 FROM cases WHERE id = $1 FOR UPDATE", [third.refId]);

    const running = tracked(round());
    const item = await waitForLockWait(blockedBy(atMark.pid));
    expect(item.query).toMatch(/^\s*UPDATE\s+bulk_job_items/);
    expect(item.blockers).toEqual([atMark.pid]);

    const cancelling = tracked(cancelBulkJob(patient, reviewer, jobId));
    const cancel = await waitForLockWait((w) => /FROM bulk_jobs WHERE id = .* FOR UPDATE/.test(w.query));
    // The cancel waits for the item in flight, and for nothing else.
    expect(cancel.blockers).toEqual([item.pid]);
    expect(cancelling.state.settled).toBe(false);

    await atMark.locker.query("ROLLBACK");
    expect(await cancelling.done).toEqual({ jobId, state: "cancelled" });
    // The cancel has committed; only now may the third item reach its mark, which must refuse it.
    expect(running.state.settled).toBe(false);
    await beforeMark.locker.query("ROLLBACK");
    await running.done;

    const after = await db.bulkJobItem.findMany({ where: { jobId }, orderBy: { position: "asc" } });
    expect(after.map((i) => i.outcome)).toEqual(["done", "done", null]);
    expect(await expectConsistent(jobId)).toEqual({ done: 2, skipped: 0, failed: 0 });
    expect(await escalated(third.refId)).toBe(false);

    // Later rounds take nothing from a cancelled job.
    clock += 3_600_000;
    await runBulkJobRound(db, { now: new Date(clock) });
    expect(await expectConsistent(jobId)).toEqual({ done: 2, skipped: 0, failed: 0 });
  });

  it("does not wait for an item that has not marked itself yet: the cancel commits first and the item is not run", async () => {
    const { jobId, items, round } = await escalationJob(3);
    const [first, second] = items;
    if (!first || !second) throw new Error("expected three items");
    // The second item's transaction is open, held at its case row, before its change and its mark.
    const beforeMark = await openLocker();
    await beforeMark.locker.query("SELECT 1 FROM cases WHERE id = $1 FOR UPDATE", [second.refId]);

    const running = tracked(round());
    const item = await waitForLockWait(blockedBy(beforeMark.pid));
    expect(item.blockers).toEqual([beforeMark.pid]);

    // Nothing holds the job row: the cancel commits while the item's transaction is still open.
    expect(await cancelBulkJob(db, reviewer, jobId)).toEqual({ jobId, state: "cancelled" });
    expect(running.state.settled).toBe(false);
    await beforeMark.locker.query("ROLLBACK");
    await running.done;

    const after = await db.bulkJobItem.findMany({ where: { jobId }, orderBy: { position: "asc" } });
    expect(after.map((i) => i.outcome)).toEqual(["done", null, null]);
    expect(await expectConsistent(jobId)).toEqual({ done: 1, skipped: 0, failed: 0 });
    expect(await escalated(first.refId)).toBe(true);
    expect(await escalated(second.refId)).toBe(false);
  });
});
