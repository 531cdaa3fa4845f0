import type { Db, Prisma } from "@/lib/db/client";
import type { Principal } from "@/lib/domain/principal";
import { inProducerScope } from "@/lib/domain/producer-scope";
import { can } from "@/lib/domain/roles";
import { AppError } from "@/lib/errors";
import type { UserActor } from "../access/actor";
import { claimJob } from "../job-claim/claim-job";
import { keepRefusedClaim } from "../job-claim/keep-refused-claim";

/** The attempt that owns a provider job (rule 11), with the case of its operation. */
export async function findJobOwner(tx: Prisma.TransactionClient, provider: string, providerJobId: string) {
  const owner = await tx.attempt.findUnique({
    where: { provider_providerJobId: { provider, providerJobId } },
    select: { id: true, operation: { select: { producer: true, operationId: true, case: { select: { id: true } } } } },
  });
  return owner
    ? {
        attemptRef: owner.id,
        caseId: owner.operation.case?.id ?? null,
        operationId: owner.operation.operationId,
        producer: owner.operation.producer,
      }
    : null;
}

/**
 * A job's owning case as one reader may see it: a case outside their producers is not named (decision 035);
 * people know a case by its operation ID, so that is what names it to them.
 */
export type JobOwner = { caseId: string; operationId: string; producer: string };

/** The owning case of each of these jobs that some attempt already records (jobs nobody owns are absent). */
export async function ownersOfJobs(db: Db, provider: string, providerJobIds: string[]): Promise<Map<string, JobOwner>> {
  if (providerJobIds.length === 0) return new Map();
  const owners = await db.attempt.findMany({
    where: { provider, providerJobId: { in: providerJobIds } },
    select: {
      providerJobId: true,
      operation: { select: { producer: true, operationId: true, case: { select: { id: true } } } },
    },
  });
  return new Map(
    owners.flatMap((o) =>
      o.providerJobId && o.operation.case
        ? [
            [
              o.providerJobId,
              { caseId: o.operation.case.id, operationId: o.operation.operationId, producer: o.operation.producer },
            ],
          ]
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
  const where = mayNameOwner(user, owner)
    ? ` It belongs to operation ${owner.operationId} (its case: /cases/${owner.caseId}).`
    : "";
  return new AppError("provider_job_in_use", `This provider job is already recorded for another attempt.${where}`);
}

/**
 * Records the job on an attempt (a case may only name its own attempt's job; that key is checked at
 * commit), through the ownership rule every door shares (rule 17, lib/services/job-claim/claim-job.ts):
 * a job the provider's evidence shows is another operation's is refused, one it shows is this
 * attempt's is taken from a bare claim, and the unique key settles a race with another writer (the
 * loser is refused, not a 500). A reviewer is pointed at the owning case; anyone else (a producer, a
 * provider's webhook) learns nothing about it (rule 11).
 */
export async function recordJobOnAttempt(
  tx: Prisma.TransactionClient,
  actor: Principal,
  target: { attemptRef: string; provider: string; providerJobId: string },
) {
  const refused = (owner: JobOwner | null, reason: string | null) => {
    if (reason) return new AppError("provider_job_in_use", `The provider's evidence refuses this claim: ${reason}.`);
    return actor.kind === "user"
      ? jobInUseForReviewer(actor, owner)
      : new AppError("provider_job_in_use", "This provider job is already recorded for another operation or attempt.");
  };
  await claimJob(tx, actor, target, refused);
}

/** Runs a door's transaction; a claim in it that the rule refused is kept and flagged after it rolled back (decision 039). */
export async function keepingRefusedClaims<T>(db: Db, actor: Principal, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    await keepRefusedClaim(db, actor, error);
    throw error;
  }
}
