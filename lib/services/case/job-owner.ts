import type { Db, Prisma } from "@/lib/db/client";
import { isUniqueViolation } from "@/lib/db/unique-violation";
import type { Principal } from "@/lib/domain/principal";
import { inProducerScope } from "@/lib/domain/producer-scope";
import { can } from "@/lib/domain/roles";
import { AppError } from "@/lib/errors";
import type { UserActor } from "../access/actor";

/** The attempt that owns a provider job (rule 11), with the case of its operation. */
export async function findJobOwner(tx: Prisma.TransactionClient, provider: string, providerJobId: string) {
  const owner = await tx.attempt.findUnique({
    where: { provider_providerJobId: { provider, providerJobId } },
    select: { id: true, operation: { select: { producer: true, case: { select: { id: true } } } } },
  });
  return owner
    ? { attemptRef: owner.id, caseId: owner.operation.case?.id ?? null, producer: owner.operation.producer }
    : null;
}

/** A job's owning case as one reader may see it: a case outside their producers is not named (decision 035). */
export type JobOwner = { caseId: string; producer: string };

/** The owning case of each of these jobs that some attempt already records (jobs nobody owns are absent). */
export async function ownersOfJobs(db: Db, provider: string, providerJobIds: string[]): Promise<Map<string, JobOwner>> {
  if (providerJobIds.length === 0) return new Map();
  const owners = await db.attempt.findMany({
    where: { provider, providerJobId: { in: providerJobIds } },
    select: { providerJobId: true, operation: { select: { producer: true, case: { select: { id: true } } } } },
  });
  return new Map(
    owners.flatMap((o) =>
      o.providerJobId && o.operation.case
        ? [[o.providerJobId, { caseId: o.operation.case.id, producer: o.operation.producer }]]
        : [],
    ),
  );
}

/** Whether `user` may be shown the owning case: they read cases, and it is one of their producers'. */
export function mayNameOwner(user: UserActor, owner: JobOwner | null): owner is JobOwner {
  return owner !== null && can(user.roles, "case:read") && inProducerScope(user.producers, owner.producer);
}

/**
 * To a reviewer the refusal points at the owning case, so they can look there instead of guessing;
 * not when the case is another producer's than theirs, which does not exist for them.
 */
export function jobInUseForReviewer(user: UserActor, owner: JobOwner | null): AppError {
  const where = mayNameOwner(user, owner) ? ` It belongs to case /cases/${owner.caseId}.` : "";
  return new AppError("provider_job_in_use", `This provider job is already recorded for another attempt.${where}`);
}

/**
 * Records the job on an attempt (a case may only name its own attempt's job; that key is checked at
 * commit). A job another attempt owns is refused before the write, and the unique key settles a race
 * with another writer of the same job: the loser is refused, not a 500. A reviewer is pointed at the
 * owning case; anyone else (a producer, a provider's webhook) learns nothing about it (rule 11).
 */
export async function recordJobOnAttempt(
  tx: Prisma.TransactionClient,
  actor: Principal,
  target: { attemptRef: string; provider: string; providerJobId: string },
) {
  const refused = (owner: JobOwner | null) =>
    actor.kind === "user"
      ? jobInUseForReviewer(actor, owner)
      : new AppError("provider_job_in_use", "This provider job is already recorded for another operation or attempt.");
  const owner = await findJobOwner(tx, target.provider, target.providerJobId);
  if (owner?.attemptRef === target.attemptRef) return;
  if (owner) throw refused(owner.caseId ? { caseId: owner.caseId, producer: owner.producer } : null);
  try {
    await tx.attempt.update({ where: { id: target.attemptRef }, data: { providerJobId: target.providerJobId } });
  } catch (error) {
    if (isUniqueViolation(error)) throw refused(null);
    throw error;
  }
}
