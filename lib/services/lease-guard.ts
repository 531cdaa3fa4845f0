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

/**
 * Locks the action row if, and only if, this worker still holds the claim. Every write a worker
 * makes runs after this in the same transaction, so a rescue or a newer claim (which must lock the
 * same row) cannot interleave: a stale worker finds nothing and writes nothing.
 */
export async function lockHeldClaim(
  tx: Prisma.TransactionClient,
  proof: ClaimProof,
): Promise<{ caseId: string; kind: string; claimCount: number } | null> {
  const rows = await tx.$queryRaw<{ case_id: string; kind: string; claim_count: number }[]>`
    SELECT case_id, kind::text, claim_count FROM recovery_actions
    WHERE id = ${proof.actionId}::uuid AND status = 'claimed' AND lease_owner = ${proof.workerId}
      AND fencing_token = ${BigInt(proof.fencingToken)} AND lease_until > now()
    FOR UPDATE`;
  const row = rows[0];
  return row ? { caseId: row.case_id, kind: row.kind, claimCount: row.claim_count } : null;
}
