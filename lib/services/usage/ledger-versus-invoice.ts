import type { Db } from "@/lib/db/client";
import type { Principal } from "@/lib/domain/principal";
import { requirePermission, requireUnscoped } from "../access/actor";
import { toTotal } from "../finance/finance-micros";

type Row = {
  provider: string;
  currency: string;
  invoice: bigint;
  ledger: bigint;
  unexplained: bigint;
  waiting: bigint;
};

/**
 * The check behind "the ledger equals the imported invoice" (decision 074), per provider and
 * currency: every imported line's total beside what the ledger charged for them, the holds those
 * lines name (settle, overage, late charge, adjustment: what the provider's charge made them) plus
 * the outside charges booked for lines finance explained. The lines still unexplained, and those a
 * hold took but has not applied yet (no adjustment recorded on the line), are the whole difference
 * until they are attached, explained or applied. Every producer's money, so unscoped only.
 */
export async function ledgerVersusInvoice(db: Db, actor: Principal, input: { provider?: string } = {}) {
  requireUnscoped(requirePermission(actor, "usage:import"));
  const provider = input.provider ?? null;
  const rows = await db.$queryRaw<Row[]>`
    WITH invoice AS (
      SELECT provider, currency, sum(amount_micros)::bigint AS invoice,
             coalesce(sum(amount_micros) FILTER (WHERE hold_ref IS NULL AND explained_at IS NULL), 0)::bigint AS unexplained,
             coalesce(sum(amount_micros) FILTER (WHERE hold_ref IS NOT NULL AND adjustment_micros IS NULL), 0)::bigint AS waiting
      FROM usage_lines WHERE ${provider}::text IS NULL OR provider = ${provider} GROUP BY 1, 2
    ), invoiced_holds AS (
      SELECT DISTINCT provider, hold_ref FROM usage_lines
      WHERE hold_ref IS NOT NULL AND (${provider}::text IS NULL OR provider = ${provider})
    ), ledger AS (
      SELECT i.provider, h.currency, sum(e.amount_micros)::bigint AS ledger
      FROM invoiced_holds i JOIN holds h ON h.id = i.hold_ref JOIN ledger_entries e ON e.hold_ref = h.id
      WHERE e.kind IN ('settle', 'overage', 'late_charge', 'adjustment') GROUP BY 1, 2
      UNION ALL
      SELECT provider, currency, sum(amount_micros)::bigint FROM ledger_entries
      WHERE hold_ref IS NULL AND kind = 'outside_charge' AND (${provider}::text IS NULL OR provider = ${provider})
      GROUP BY 1, 2
    ), booked AS (SELECT provider, currency, sum(ledger)::bigint AS ledger FROM ledger GROUP BY 1, 2)
    SELECT coalesce(i.provider, b.provider) AS provider, coalesce(i.currency, b.currency) AS currency,
           coalesce(i.invoice, 0)::bigint AS invoice, coalesce(b.ledger, 0)::bigint AS ledger,
           coalesce(i.unexplained, 0)::bigint AS unexplained, coalesce(i.waiting, 0)::bigint AS waiting
    FROM invoice i FULL OUTER JOIN booked b ON b.provider = i.provider AND b.currency = i.currency
    ORDER BY 1, 2`;
  return rows.map((row) => ({
    provider: row.provider,
    currency: row.currency,
    invoiceMicros: toTotal(row.invoice),
    ledgerMicros: toTotal(row.ledger),
    unexplainedMicros: toTotal(row.unexplained),
    /** Lines a hold took whose charge it has not applied yet. */
    waitingMicros: toTotal(row.waiting),
    differenceMicros: toTotal(row.invoice - row.ledger),
  }));
}

export type LedgerVersusInvoice = Awaited<ReturnType<typeof ledgerVersusInvoice>>;
