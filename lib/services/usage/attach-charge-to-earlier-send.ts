import type { Prisma } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import type { UserActor } from "../access/actor";
import { recordJobOnAttempt } from "../case/job-owner";

/** A job-less attempt of the case's operation that is not the case's open question. */
export type EarlierSend = { caseId: string; attemptRef: string; attemptId: string; provider: string };

/**
 * Finance records an unexplained job on a send of an operation whose case went on without it
 * (decision 080): a "no job exists" verdict the provider's invoice contradicts, a replacement whose
 * answer was lost, a send before the current one. The case is not reopened (its outcome was
 * reached and acted on); the job joins the attempt through the ownership rule every door shares
 * (rule 17), so a job another attempt owns, or the provider's evidence ties elsewhere, is refused.
 * One attempt sends one job: an attempt that already has one is refused, not overwritten.
 */
export async function attachChargeToEarlierSend(
  tx: Prisma.TransactionClient,
  user: UserActor,
  send: EarlierSend,
  providerJobId: string,
): Promise<void> {
  const [attempt] = await tx.$queryRaw<{ provider_job_id: string | null; holds: bigint }[]>`
    SELECT a.provider_job_id, (SELECT count(*) FROM holds h WHERE h.attempt_ref = a.id)::bigint AS holds
    FROM attempts a WHERE a.id = ${send.attemptRef}::uuid FOR UPDATE`;
  if (!attempt) throw new AppError("not_found", `No attempt ${send.attemptId} of that case's operation.`);
  if (attempt.provider_job_id !== null)
    throw new AppError(
      "conflict",
      `Attempt ${send.attemptId} already has ${send.provider} job ${attempt.provider_job_id}: one send makes one job.`,
    );
  if (attempt.holds === 0n)
    throw new AppError("invalid_request", `Attempt ${send.attemptId} holds no money for this charge to land on.`);
  await recordJobOnAttempt(tx, user, { attemptRef: send.attemptRef, provider: send.provider, providerJobId });
}
