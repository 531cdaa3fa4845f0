import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { sqlRows } from "@/lib/db/sql-rows";
import type { Principal } from "@/lib/domain/principal";
import { sanitiseString } from "@/lib/domain/sanitise";
import { requireWorker } from "../access/actor";
import { type ClaimProof, heldClaimCtes } from "./lease-guard";

const MAX_FAILURE_TEXT = 500;
// PostgreSQL's jsonb takes neither NUL nor half of a surrogate pair; an error message may carry both.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Notes why this claim is ending without a finish (the worker threw), while the claim is still
 * held: the entry is the evidence a poison action is parked with, and the number of entries is
 * what counts towards the poison threshold. At most one entry per claim (fencing token).
 */
export async function recordClaimFailure(
  db: Db,
  actor: Principal,
  proof: ClaimProof,
  error: unknown,
): Promise<boolean> {
  const worker = requireWorker(actor);
  const held = { ...proof, workerId: worker.workerId };
  const raw = error instanceof Error ? error.message : String(error);
  const text =
    sanitiseString(raw.replaceAll("\u0000", "\uFFFD").replace(LONE_SURROGATE, "\uFFFD"), MAX_FAILURE_TEXT) ||
    "unknown error";
  const token = BigInt(held.fencingToken);
  const rows = await sqlRows<{ id: string }>(
    db,
    Prisma.sql`
    WITH ${heldClaimCtes(held)}, noted AS (
      UPDATE recovery_actions a
      SET failures = a.failures || jsonb_build_array(jsonb_build_object('fencingToken', ${token}::bigint, 'error', ${text}::text, 'at', now()))
      FROM held
      WHERE a.id = held.id AND NOT a.failures @> jsonb_build_array(jsonb_build_object('fencingToken', ${token}::bigint))
      RETURNING a.id
    ), last_error AS (
      -- The workers page shows each worker's last error (decision 064).
      UPDATE worker_heartbeats SET last_error = ${text}, last_error_at = now()
      WHERE worker_id = ${worker.workerId} AND EXISTS (SELECT 1 FROM noted)
    )
    SELECT id FROM noted`,
  );
  return rows.length === 1;
}
