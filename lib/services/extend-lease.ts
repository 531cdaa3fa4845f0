import type { Db } from "@/lib/db/client";
import type { Principal } from "@/lib/domain/principal";
import { requireWorker } from "./actor";
import { DEFAULT_LEASE_SECONDS } from "./claim-actions";
import { type ClaimProof, heldClaim } from "./lease-guard";

/** Heartbeat: extends a lease that is still held. `false` means the claim is lost: stop working. */
export async function extendLease(
  db: Db,
  actor: Principal,
  proof: ClaimProof,
  leaseSeconds = DEFAULT_LEASE_SECONDS,
): Promise<boolean> {
  const worker = requireWorker(actor);
  const { count } = await db.recoveryAction.updateMany({
    where: heldClaim({ ...proof, workerId: worker.workerId }),
    data: { leaseUntil: new Date(Date.now() + leaseSeconds * 1000) },
  });
  return count === 1;
}
