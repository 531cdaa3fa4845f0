import type { Prisma } from "@/lib/db/client";

/** What every write by a claim holder must match: its action, its worker, its token, a live lease. */
export type ClaimProof = { actionId: string; workerId: string; fencingToken: number };

export function heldClaim(proof: ClaimProof): Prisma.RecoveryActionWhereInput {
  return {
    id: proof.actionId,
    status: "claimed",
    leaseOwner: proof.workerId,
    fencingToken: BigInt(proof.fencingToken),
    leaseUntil: { gt: new Date() },
  };
}
