import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { sqlRows } from "@/lib/db/sql-rows";
import type { Principal } from "@/lib/domain/principal";
import { requireWorker } from "./actor";
import { type ClaimProof, heldClaimCtes } from "./lease-guard";

export type AssetKey = { outputIndex: number; storageKey: string };

export type Reservation = { kind: "reserved" } | { kind: "taken"; keys: string[] } | { kind: "lost_claim" };

/**
 * Reserves one unpublished asset row per output, under the claim, before any byte is written:
 * the unique index on the key speaks first, so a key that is already someone's is found here and
 * nothing is copied. Rows reserved by a claim that ends without publishing are dropped by its
 * finish; those of a claim that was lost stay, unpublished, as the record that its key is spent.
 */
export async function reserveAssets(
  db: Db,
  actor: Principal,
  proof: ClaimProof,
  input: { caseId: string; keys: AssetKey[] },
): Promise<Reservation> {
  const worker = requireWorker(actor);
  const held = { ...proof, workerId: worker.workerId };
  const rows = await sqlRows<{ held: bigint; key: string | null }>(
    db,
    Prisma.sql`
    WITH ${heldClaimCtes(held)}, reserved AS (
      INSERT INTO assets (case_id, attempt_ref, action_id, fencing_token, output_index, storage_key)
      SELECT c.id, c.attempt_ref, held.id, ${BigInt(held.fencingToken)}, k."outputIndex", k."storageKey"
      FROM held JOIN cases c ON c.id = held.case_id AND c.id = ${input.caseId}::uuid
      CROSS JOIN jsonb_to_recordset(${JSON.stringify(input.keys)}::jsonb) AS k("outputIndex" int, "storageKey" text)
      ON CONFLICT (storage_key) DO NOTHING
      RETURNING storage_key
    )
    SELECT (SELECT count(*) FROM held) AS held, r.storage_key AS key
    FROM (SELECT 1) one LEFT JOIN reserved r ON true`,
  );
  if (Number(rows[0]?.held ?? 0) !== 1) return { kind: "lost_claim" };
  const got = new Set(rows.flatMap((r) => (r.key ? [r.key] : [])));
  const taken = input.keys.map((k) => k.storageKey).filter((key) => !got.has(key));
  return taken.length === 0 ? { kind: "reserved" } : { kind: "taken", keys: taken };
}
