import type { Db } from "@/lib/db/client";
import type { BulkJobKind, BulkJobState } from "@/lib/domain/bulk-jobs";
import type { Principal } from "@/lib/domain/principal";
import type { BulkSkipped } from "../case/bulk-cases";
import { requireJobViewer } from "./cancel-bulk-job";

/** Items done, skipped and failed so far, from the items themselves (exact, whatever the last round wrote). */
export async function countItems(db: Db, jobId: string) {
  const rows = await db.bulkJobItem.groupBy({ by: ["outcome"], where: { jobId }, _count: { _all: true } });
  const of = (outcome: string) => rows.find((row) => row.outcome === outcome)?._count._all ?? 0;
  return { done: of("done"), skipped: of("skipped"), failed: of("failed") };
}

/** One left alone by the job, and why: the same shape as a dry run's skipped case. */
export type BulkJobSkip = Omit<BulkSkipped, "at"> & { at: "dry_run" | "execute"; outcome: "skipped" | "failed" };

/**
 * A job as its panel shows it (polled while it runs): its state and counts, exact from its items,
 * and what it left alone with the reasons, the dry run's skips included. Only its starter (whose
 * scope chose these cases) and admins read it.
 */
export async function getBulkJob(db: Db, actor: Principal, jobId: string) {
  const job = await db.bulkJob.findUnique({ where: { id: jobId } });
  const user = requireJobViewer(actor, job);
  if (!job) throw new Error("unreachable");
  const counts = await countItems(db, jobId);
  const left = await db.bulkJobItem.findMany({
    where: { jobId, outcome: { in: ["skipped", "failed"] } },
    orderBy: { position: "asc" },
    take: 200,
  });
  const skips: BulkJobSkip[] = [
    ...(job.previewSkipped as BulkSkipped[]).map((skip) => ({ ...skip, outcome: "skipped" as const })),
    ...left.map((item) => ({
      caseId: item.refId,
      operationId: item.operationId ?? "",
      code: item.code ?? "",
      message: item.message ?? "",
      at: "execute" as const,
      outcome: item.outcome as "skipped" | "failed",
    })),
  ];
  return {
    id: job.id,
    kind: job.kind as BulkJobKind,
    verb: job.verb,
    state: job.state as BulkJobState,
    planned: job.planned,
    ...counts,
    startedAt: job.createdAt,
    finishedAt: job.finishedAt,
    cancelledByMe: job.cancelledById === user.userId,
    skips,
  };
}

export type BulkJobView = Awaited<ReturnType<typeof getBulkJob>>;
