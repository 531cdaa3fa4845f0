import { fail, ok, type Result } from "./errors";

export interface Lease {
  holderId: string;
  fencingToken: number;
  leaseUntil: Date;
}

export interface LeaseClaimant {
  holderId: string;
  fencingToken: number;
}

export const DEFAULT_LEASE_SECONDS = 60;

/** The token only ever grows, so a write carrying an older token is recognisably stale. */
export function nextLease(
  previousFencingToken: number,
  holderId: string,
  now: Date,
  leaseSeconds = DEFAULT_LEASE_SECONDS,
): Lease {
  if (!Number.isSafeInteger(previousFencingToken) || previousFencingToken < 0) {
    throw new RangeError("fencing token must be a non-negative integer");
  }
  if (!Number.isSafeInteger(leaseSeconds) || leaseSeconds <= 0) {
    throw new RangeError("lease length must be a positive whole number of seconds");
  }
  return {
    holderId,
    fencingToken: previousFencingToken + 1,
    leaseUntil: new Date(now.getTime() + leaseSeconds * 1000),
  };
}

export function isLeaseExpired(lease: Pick<Lease, "leaseUntil">, now: Date): boolean {
  return now.getTime() >= lease.leaseUntil.getTime();
}

/**
 * A worker whose lease ran out is treated as having lost it even before anyone reclaims it:
 * a rescuer may already have handed the action back, and the old worker cannot know.
 */
export function checkLeaseHolder(lease: Lease | null, claimant: LeaseClaimant, now: Date): Result<void> {
  if (lease === null || lease.holderId !== claimant.holderId) {
    return fail("not_claim_owner", "this worker does not hold the claim");
  }
  if (lease.fencingToken !== claimant.fencingToken) {
    return fail("stale_fencing_token", "the claim was taken over", {
      current: lease.fencingToken,
      presented: claimant.fencingToken,
    });
  }
  if (isLeaseExpired(lease, now)) {
    return fail("not_claim_owner", "the lease has expired", { reason: "lease_expired" });
  }
  return ok(undefined);
}
