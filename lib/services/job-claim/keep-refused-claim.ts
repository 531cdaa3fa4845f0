import type { Db, Prisma } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import { isUniqueViolation } from "@/lib/db/unique-violation";
import type { Principal } from "@/lib/domain/principal";
import { logger } from "@/lib/log/logger";
import { type ClaimConflict, recordConflict } from "./record-conflict";

/** A claim the rule refused, as the conflict row and both timelines will name it. */
export type RefusedClaim = ClaimConflict;

// The refusal rolls its transaction back; the error carries what to keep afterwards, under a symbol
// no answer's body reads (toErrorBody takes code, message and extra only).
const REFUSED_CLAIM = Symbol("refusedClaim");

export function markRefused<E extends Error>(error: E, claim: RefusedClaim): E {
  Object.defineProperty(error, REFUSED_CLAIM, { value: claim, enumerable: false });
  return error;
}

function refusedClaimOf(error: unknown): RefusedClaim | undefined {
  return error instanceof Error ? (error as Error & { [REFUSED_CLAIM]?: RefusedClaim })[REFUSED_CLAIM] : undefined;
}

/**
 * Rule 17 at the report and attach doors: a refused claim answers 409 and changes nothing of the
 * claim, but both operations are flagged for a reviewer with the conflict, in a transaction of its
 * own after the refused one rolled back. One flag per claimant and job: a producer repeating a
 * refused report cannot fill the holder's timeline. Anything else thrown is left alone.
 */
export async function keepRefusedClaim(db: Db, actor: Principal, error: unknown): Promise<void> {
  const claim = refusedClaimOf(error);
  if (!claim) return;
  await inTransaction(db, (tx) => keepOnce(tx, actor, claim)).catch((failure: unknown) => {
    // A refusal racing its twin: the other kept it (job_claim_conflicts_refused_once).
    if (isUniqueViolation(failure)) return;
    logger("job-claim").error({ err: failure, provider: claim.provider }, "a refused job claim could not be kept");
  });
}

async function keepOnce(tx: Prisma.TransactionClient, actor: Principal, claim: RefusedClaim): Promise<void> {
  const seen = await tx.jobClaimConflict.findFirst({
    where: {
      provider: claim.provider,
      providerJobId: claim.providerJobId,
      claimantAttemptRef: claim.claimantAttemptRef,
      outcome: "refused",
    },
    select: { id: true },
  });
  if (seen) return;
  await recordConflict(tx, actor, { ...claim, outcome: "refused", evidence: { door: claim.door } });
}
