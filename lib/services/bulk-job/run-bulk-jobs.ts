import type { Prisma as Client, Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { inTransaction } from "@/lib/db/transaction";
import type { BulkAction } from "@/lib/domain/bulk-verbs";
import { scopeFromColumn } from "@/lib/domain/producer-scope";
import { isRole } from "@/lib/domain/roles";
import { logger } from "@/lib/log/logger";
import type { UserActor } from "../access/actor";
import { executeOne, type Refusal } from "../case/bulk-cases";
import { executeHoldItem, type HoldBulkAction } from "./bulk-holds";
import { recordFinished } from "./create-bulk-job";

/** A batch left unfinished by a process that stopped is taken again after this long. */
const LEASE_MS = 5 * 60_000;
/** Jobs advanced per round; each by one batch. */
const JOBS_PER_ROUND = 5;

type ClaimedJob = {
  id: string;
  userId: string;
  previewId: string;
  kind: "cases" | "holds";
  action: BulkAction | HoldBulkAction;
  batchSize: number;
  pauseMs: number;
};

/** Thrown inside an item's transaction when its job was cancelled meanwhile: the change rolls back. */
class JobNotRunning extends Error {}

/**
 * One round of the console's bulk loop (decision 065): each running job whose next batch is due
 * gets one batch, its items one at a time, each through its own single-case (or single-hold)
 * service in its own transaction, which also marks the item, and only while the job still runs: a
 * cancel stops every item not yet committed. Then the job's counts are taken from its items, the
 * next batch is due after the job's pause, and a job with nothing left is finished and audited.
 * Returns the items taken.
 *
 * Every console process runs a round every second (decision 065), almost always with no job at
 * all: a round first asks whether any running job's batch is due, a read of the
 * (state, next_batch_at) index that locks and writes nothing, and only then claims (decision 070).
 */
export async function runBulkJobRound(db: Db, options: { now?: Date; storePrompts?: boolean } = {}): Promise<number> {
  const now = options.now ?? new Date();
  if (!(await bulkBatchDue(db, now))) return 0;
  const jobs = await db.$queryRaw<ClaimedJob[]>(Prisma.sql`
    UPDATE bulk_jobs SET next_batch_at = ${new Date(now.getTime() + LEASE_MS)}
    WHERE id IN (SELECT id FROM bulk_jobs WHERE state = 'running' AND next_batch_at <= ${now}
                 ORDER BY next_batch_at LIMIT ${JOBS_PER_ROUND} FOR UPDATE SKIP LOCKED)
    RETURNING id::text, user_id::text AS "userId", preview_id::text AS "previewId", kind, action,
              batch_size AS "batchSize", pause_ms AS "pauseMs"`);
  let taken = 0;
  for (const job of jobs) taken += await runBatch(db, job, now, options.storePrompts ?? false);
  return taken;
}

/** Whether a running job's next batch is due at `now`: the idle round's only statement. */
export async function bulkBatchDue(db: Db, now: Date): Promise<boolean> {
  const [row] = await db.$queryRaw<{ due: boolean }[]>(Prisma.sql`
    SELECT EXISTS (SELECT 1 FROM bulk_jobs WHERE state = 'running' AND next_batch_at <= ${now}) AS due`);
  return row?.due === true;
}

async function runBatch(db: Db, job: ClaimedJob, now: Date, storePrompts: boolean): Promise<number> {
  const items = await db.bulkJobItem.findMany({
    where: { jobId: job.id, outcome: null },
    orderBy: { position: "asc" },
    take: job.batchSize,
  });
  const user = await userOf(db, job.userId);
  for (const item of items) {
    const mark = (tx: Db) => markItem(tx, job.id, item.position, { outcome: "done" });
    try {
      const refusal = user
        ? await runItem(db, user, job, { id: item.refId, version: item.version }, storePrompts, mark)
        : { code: "forbidden", message: "The person who started this can no longer act.", operationId: "" };
      if (refusal) await markItem(db, job.id, item.position, { outcome: "skipped", ...refusal });
    } catch (error) {
      if (error instanceof JobNotRunning) break;
      logger("bulk-job").error({ jobId: job.id, position: item.position, error: String(error) }, "bulk item failed");
      await markItem(db, job.id, item.position, {
        outcome: "failed",
        code: "internal",
        message: "Something went wrong; it was left as it is.",
        operationId: "",
      }).catch(() => false);
    }
  }
  await settleCounts(db, job, user, now);
  return items.length;
}

function runItem(
  db: Db,
  user: UserActor,
  job: ClaimedJob,
  seen: { id: string; version: number },
  storePrompts: boolean,
  mark: (tx: Db) => Promise<boolean>,
): Promise<Refusal | null> {
  const inside = async (tx: Client.TransactionClient) => {
    if (!(await mark(tx))) throw new JobNotRunning();
  };
  if (job.kind === "holds") return executeHoldItem(db, user, job.action as HoldBulkAction, seen.id, inside);
  const via = { bulkPreviewId: job.previewId };
  return executeOne(db, user, job.action as BulkAction, seen, via, storePrompts, inside);
}

/**
 * Marks an item not yet taken, only while its job runs; false when it was not (cancelled, or taken).
 * The job row is share-locked until the item's transaction ends, so a cancel waits for the items in
 * flight and, once it commits, no item can commit after it: its audit row's counts are final.
 */
async function markItem(
  db: Db,
  jobId: string,
  position: number,
  outcome: { outcome: "done" | "skipped" | "failed"; code?: string; message?: string; operationId?: string },
): Promise<boolean> {
  const changed = await db.$executeRaw(Prisma.sql`
    UPDATE bulk_job_items i SET outcome = ${outcome.outcome}, code = ${outcome.code ?? null},
           message = ${outcome.message ?? null}, operation_id = ${outcome.operationId ?? null}, done_at = now()
    WHERE i.job_id = ${jobId}::uuid AND i.position = ${position} AND i.outcome IS NULL
      AND EXISTS (SELECT 1 FROM bulk_jobs j WHERE j.id = i.job_id AND j.state = 'running' FOR SHARE)`);
  return changed === 1;
}

/** The job's counts from its items; the next batch after the pause; finished when nothing is left. */
async function settleCounts(db: Db, job: ClaimedJob, user: UserActor | null, now: Date) {
  await inTransaction(db, async (tx) => {
    const [row] = await tx.$queryRaw<
      { state: string; verb: string; planned: number; done: number; skipped: number; failed: number }[]
    >(Prisma.sql`
      UPDATE bulk_jobs j SET done = c.done, skipped = c.skipped, failed = c.failed,
             next_batch_at = ${new Date(now.getTime() + job.pauseMs)},
             state = CASE WHEN j.state = 'running' AND c.left = 0 THEN 'finished' ELSE j.state END,
             finished_at = CASE WHEN j.state = 'running' AND c.left = 0 THEN now() ELSE j.finished_at END
      FROM (SELECT count(*) FILTER (WHERE outcome = 'done')::int AS done,
                   count(*) FILTER (WHERE outcome = 'skipped')::int AS skipped,
                   count(*) FILTER (WHERE outcome = 'failed')::int AS failed,
                   count(*) FILTER (WHERE outcome IS NULL)::int AS left
            FROM bulk_job_items WHERE job_id = ${job.id}::uuid) c
      WHERE j.id = ${job.id}::uuid
      RETURNING j.state, j.verb, j.planned, j.done, j.skipped, j.failed, c.left`);
    // Only the runner holding the batch finishes a job that was running (the claim's lease), so a
    // job finished here was finished by this statement: said once, in the same transaction.
    if (row?.state === "finished") {
      const who = user ?? (await userOf(tx, job.userId, { evenInactive: true }));
      if (who) await recordFinished(tx, who, { id: job.id, ...row });
    }
  });
}

/** The person a job acts for, as a session would load them now (roles and producers may have changed). */
export async function userOf(db: Db, userId: string, options: { evenInactive?: boolean } = {}) {
  const row = await db.user.findUnique({ where: { id: userId } });
  if (!row || (!row.active && !options.evenInactive)) return null;
  const user: UserActor = {
    kind: "user",
    userId: row.id,
    email: row.email,
    name: row.name,
    roles: row.roles.filter(isRole),
    producers: scopeFromColumn(row.producerScope),
  };
  return user;
}
