import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { sqlRows } from "@/lib/db/sql-rows";
import { type ProducerFilter, producerIn } from "@/lib/db/stat-figures";
import { type MicrosTotal, toMicrosTotal } from "@/lib/domain/money";

export type LateChargeFigure = { currency: string; count: number; micros: MicrosTotal };

/**
 * DESIGN rule 18: charges after release nobody has decided yet, per currency, read from their own
 * partial index (migration 20261205070000). For readers that checked the caller's permission.
 */
export async function openLateChargeFigures(db: Db, producers: ProducerFilter = null): Promise<LateChargeFigure[]> {
  const rows = await sqlRows<{ currency: string; n: bigint; micros: bigint }>(
    db,
    Prisma.sql`
    SELECT h.currency, count(*) AS n, coalesce(sum(l.amount_micros), 0)::bigint AS micros
    FROM holds h JOIN ledger_entries l ON l.hold_ref = h.id AND l.kind = 'late_charge'
    WHERE h.late_charged_at IS NOT NULL AND h.late_charge_decided_at IS NULL
      AND ${producerIn(producers, Prisma.sql`h.producer`)}
    GROUP BY h.currency ORDER BY h.currency`,
  );
  return rows.map((r) => ({ currency: r.currency, count: Number(r.n), micros: toMicrosTotal(r.micros) }));
}
