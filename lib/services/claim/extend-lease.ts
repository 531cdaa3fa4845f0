import type { Db } from "@/lib/db/client";
import type { Principal } from "@/lib/domain/principal";
import { requireWorker } from "../access/actor";
import { DEFAULT_LEASE_SECONDS } from "./claim-actions";
import { type ClaimProof, heldClaimCtes } from "./lease-guard";

/**
 * Heartbeat: extends a lease that is still held, on the database's clock like every lease.
 * `false` means the claim is lost: stop working.
 */
export async function extendLease(
  db: Db,
  actor: Principal,
  proof: ClaimProof,
  leaseSeconds = DEFAULT_LEASE_SECONDS,
): Promise<boolean> {
  const worker = requireWorker(actor);
  const rows = await db.$queryRaw<{ extended: bigint }[]>`
    WITH ${heldClaimCtes({ ...proof, workerId: worker.workerId })}, extended AS (
      UPDATE recovery_actions a SET lease_until = now() + make_interval(secs => ${leaseSeconds}::int)
      FROM held WHERE a.id = held.id
      RETURNING a.id
    )
    SELECT count(*) AS extended FROM extended`;
  return Number(rows[0]?.extended) === 1;
}
