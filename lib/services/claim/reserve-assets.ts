import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { sqlRows } from "@/lib/db/sql-rows";
import type { Principal } from "@/lib/domain/principal";
import type { OutputRef } from "@/lib/providers/types";
import { requireWorker } from "../access/actor";
import { type ClaimProof, heldClaimCtes } from "./lease-guard";
import { keepOutputUrls } from "./output-urls";

export type AssetKey = { outputIndex: number; storageKey: string };

export type Reservation =
  | { kind: "reserved" }
  | { kind: "taken"; keys: string[] }
  | { kind: "published"; outputIndexes: number[] }
  | { kind: "lost_claim" };

/**
 * Reserves one unpublished asset row per output, under the claim, before any byte is written:
 * the unique index on the key speaks first, so a key that is already someone's is found here and
 * nothing is copied. Rows reserved by a claim that ends without publishing are dropped by its
 * finish; those of a claim that was lost stay, unpublished, as the record that its key is spent.
 * The outputs' URLs are kept in the same statement, whole, so a later try of this delivery can
 * fetch them again without asking the provider (output-urls.ts).
 */
export async function reserveAssets(
  db: Db,
  actor: Principal,
  proof: ClaimProof,
  input: { caseId: string; keys: AssetKey[]; outputs: readonly OutputRef[] },
): Promise<Reservation> {
  const worker = requireWorker(actor);
  const held = { ...proof, workerId: worker.workerId };
  const rows = await sqlRows<{ held: bigint; key: string | null; published: number[] | null }>(
    db,
    Prisma.sql`
    WITH ${heldClaimCtes(held)}, wanted AS (
      SELECT c.id AS case_id, c.attempt_ref, k."outputIndex" AS output_index, k."storageKey" AS storage_key
      FROM held JOIN cases c ON c.id = held.case_id AND c.id = ${input.caseId}::uuid
      CROSS JOIN jsonb_to_recordset(${JSON.stringify(input.keys)}::jsonb) AS k("outputIndex" int, "storageKey" text)
    ), published AS (
      -- The same attempt delivered in an earlier episode: its one published copy per output stays
      -- the only one (assets_one_published_per_output), so this copy could never be published.
      SELECT w.output_index FROM wanted w
      WHERE EXISTS (SELECT 1 FROM assets r WHERE r.attempt_ref = w.attempt_ref AND r.output_index = w.output_index
                      AND r.published_at IS NOT NULL)
    ), reserved AS (
      INSERT INTO assets (case_id, attempt_ref, action_id, fencing_token, output_index, storage_key)
      SELECT w.case_id, w.attempt_ref, ${held.actionId}::uuid, ${BigInt(held.fencingToken)}, w.output_index, w.storage_key
      FROM wanted w WHERE NOT EXISTS (SELECT 1 FROM published)
      ON CONFLICT (storage_key) DO NOTHING
      RETURNING storage_key
    ), kept AS (
      ${keepOutputUrls(Prisma.sql`(SELECT * FROM wanted WHERE NOT EXISTS (SELECT 1 FROM published))`, input.outputs)}
    )
    SELECT (SELECT count(*) FROM held) AS held, r.storage_key AS key,
           (SELECT array_agg(output_index ORDER BY output_index) FROM published) AS published
    FROM (SELECT 1) one LEFT JOIN reserved r ON true`,
  );
  if (Number(rows[0]?.held ?? 0) !== 1) return { kind: "lost_claim" };
  const published = rows[0]?.published ?? null;
  if (published && published.length > 0) return { kind: "published", outputIndexes: published };
  const got = new Set(rows.flatMap((r) => (r.key ? [r.key] : [])));
  const taken = input.keys.map((k) => k.storageKey).filter((key) => !got.has(key));
  return taken.length === 0 ? { kind: "reserved" } : { kind: "taken", keys: taken };
}
