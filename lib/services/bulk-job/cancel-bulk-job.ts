import { recordAudit } from "@/lib/audit/writer";
import type { Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import type { Principal } from "@/lib/domain/principal";
import { can } from "@/lib/domain/roles";
import { AppError } from "@/lib/errors";
import type { UserActor } from "../access/actor";
import { countItems } from "./read-bulk-job";

/** Who may watch and cancel a job: the person who started it, and admins. */
export function requireJobViewer(actor: Principal, job: { userId: string } | null): UserActor {
  if (actor.kind !== "user") throw new AppError("forbidden", "This needs a signed-in user.");
  const user = actor;
  if (!job || (job.userId !== user.userId && !can(user.roles, "admin:settings")))
    throw new AppError("not_found", "No such bulk job.");
  return user;
}

/**
 * Stops a running job (decision 065): items already done stay done, and no item is taken after
 * this commits (each item's own transaction marks it only while its job runs). The
 * `bulk_job_cancelled` audit row names who cancelled it, with the counts at that moment.
 */
export async function cancelBulkJob(db: Db, actor: Principal, jobId: string) {
  return inTransaction(db, async (tx) => {
    const [locked] = await tx.$queryRaw<{ user_id: string }[]>`
      SELECT user_id::text FROM bulk_jobs WHERE id = ${jobId}::uuid FOR UPDATE`;
    const user = requireJobViewer(actor, locked ? { userId: locked.user_id } : null);
    const job = await tx.bulkJob.findUniqueOrThrow({ where: { id: jobId } });
    if (job.state !== "running") {
      throw new AppError(
        "conflict",
        job.state === "finished" ? "This job has finished already." : "Already cancelled.",
      );
    }
    const counts = await countItems(tx, jobId);
    const cancelled = await tx.bulkJob.update({
      where: { id: jobId },
      data: { state: "cancelled", cancelledById: user.userId, finishedAt: new Date(), ...counts },
    });
    await recordAudit(tx, {
      actor: user,
      kind: "bulk_job_cancelled",
      before: { jobId, state: "running" },
      after: {
        jobId,
        verb: job.verb,
        planned: job.planned,
        ...counts,
        startedBy: job.userId,
      },
    });
    return { jobId, state: cancelled.state };
  });
}
