import type { Db } from "@/lib/db/client";
import type { Principal } from "@/lib/domain/principal";
import { requirePermission } from "./actor";
import { toCount, toMicros } from "./finance-micros";

type Row = { currency: string; count: bigint; micros: bigint; oldest: Date };

/**
 * Exposure: money held for a submission nobody can yet say was accepted or not (rule 6 keeps it
 * held). Only the hold of the case's current attempt counts, and only while the case is open in
 * `submission_uncertain`; holds of earlier episodes are ordinary held money.
 */
export async function getExposure(db: Db, actor: Principal) {
  requirePermission(actor, "hold:read");
  const rows = await db.$queryRaw<Row[]>`
    SELECT h.currency, count(*) AS count, COALESCE(sum(h.amount_micros), 0)::bigint AS micros,
           min(h.created_at) AS oldest
    FROM holds h JOIN cases c ON c.id = h.case_id AND c.attempt_ref = h.attempt_ref
    WHERE h.status = 'held' AND c.stage = 'submission_uncertain' AND c.state <> 'resolved'
    GROUP BY h.currency
    ORDER BY h.currency`;
  return rows.map((row) => ({
    currency: row.currency,
    count: toCount(row.count),
    micros: toMicros(row.micros),
    oldestAt: row.oldest.toISOString(),
  }));
}
