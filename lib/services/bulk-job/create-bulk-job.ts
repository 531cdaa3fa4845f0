import { recordAudit } from "@/lib/audit/writer";
import type { Db } from "@/lib/db/client";
import type { Prisma } from "@/lib/db/generated/prisma/client";
import { inTransaction } from "@/lib/db/transaction";
import { BULK_PACES, type BulkJobKind, type BulkPace } from "@/lib/domain/bulk-jobs";
import type { UserActor } from "../access/actor";

/**
 * A taken dry run becomes a job (decision 065): one item per previewed case or hold, in the dry
 * run's order, with the version it read, and a `bulk_job_started` audit row naming who started it,
 * in one transaction. The console's loop works through the items (run-bulk-jobs.ts).
 */
export async function createBulkJob(
  db: Db,
  user: UserActor,
  input: {
    kind: BulkJobKind;
    previewId: string;
    action: Prisma.InputJsonValue & { verb: string };
    items: { id: string; version: number }[];
    previewSkipped: Prisma.InputJsonValue[];
    pace: BulkPace;
  },
) {
  const pace = BULK_PACES[input.pace];
  return inTransaction(db, async (tx) => {
    const job = await tx.bulkJob.create({
      data: {
        userId: user.userId,
        previewId: input.previewId,
        kind: input.kind,
        verb: input.action.verb,
        action: input.action,
        planned: input.items.length,
        previewSkipped: input.previewSkipped,
        batchSize: pace.batchSize,
        pauseMs: pace.pauseMs,
        // Nothing to do: finished at once, so no job waits for a round that has nothing to take.
        ...(input.items.length === 0 ? { state: "finished", finishedAt: new Date() } : {}),
      },
    });
    await tx.bulkJobItem.createMany({
      data: input.items.map((item, position) => ({ jobId: job.id, position, refId: item.id, version: item.version })),
    });
    await recordAudit(tx, {
      actor: user,
      kind: "bulk_job_started",
      after: { jobId: job.id, kind: input.kind, verb: job.verb, planned: job.planned, pace: input.pace },
      evidence: { bulkPreviewId: input.previewId },
    });
    if (job.state === "finished") await recordFinished(tx, user, job);
    return { jobId: job.id };
  });
}

/** The `bulk_job_finished` audit row: who the job ran for, and what it came to. */
export async function recordFinished(
  tx: Db,
  user: UserActor,
  job: { id: string; verb: string; planned: number; done: number; skipped: number; failed: number },
) {
  await recordAudit(tx, {
    actor: user,
    kind: "bulk_job_finished",
    after: {
      jobId: job.id,
      verb: job.verb,
      planned: job.planned,
      done: job.done,
      skipped: job.skipped,
      failed: job.failed,
    },
  });
}
