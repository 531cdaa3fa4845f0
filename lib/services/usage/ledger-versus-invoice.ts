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
  unbilled: bigint;
};

/**
 * The check behind "the ledger equals the imported invoice" (decision 074), per provider and
 * currency: every imported line's total beside what the ledger charged for them, the holds those
 * lines name (settle, overage, late charge, adjustment: what the provider's charge made them) plus
 * the outside charges booked for lines finance explained. The lines still unexplained, and those a
 * hold took but has not applied yet (no adjustment recorded on the line), are the whole difference
 * until they are attached, explained or applied. Beside them, what the ledger charged on the
 * provider's holds that no imported line names (decision 080): a send the invoice has not billed
 * yet, or whose line is still unexplained, or that the provider billed nothing; once the period's
 * invoice is in, the ledger equals it only when this is zero too. Every producer's money, so
 * unscoped only.
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
    ), booked AS (SELECT provider, currency, sum(ledger)::bigint AS ledger FROM ledger GROUP BY 1, 2
    ), unbilled AS (
      SELECT a.provider, h.currency, sum(e.amount_micros)::bigint AS unbilled
      FROM ledger_entries e JOIN holds h ON h.id = e.hold_ref JOIN attempts a ON a.id = h.attempt_ref
      WHERE e.kind IN ('settle', 'overage', 'late_charge', 'adjustment')
        AND (${provider}::text IS NULL OR a.provider = ${provider})
        AND NOT EXISTS (SELECT 1 FROM usage_lines u WHERE u.hold_ref = h.id)
      GROUP BY 1, 2 HAVING sum(e.amount_micros) <> 0
    ), figures AS (
      SELECT coalesce(i.provider, b.provider) AS provider, coalesce(i.currency, b.currency) AS currency,
             coalesce(i.invoice, 0)::bigint AS invoice, coalesce(b.ledger, 0)::bigint AS ledger,
             coalesce(i.unexplained, 0)::bigint AS unexplained, coalesce(i.waiting, 0)::bigint AS waiting
      FROM invoice i FULL OUTER JOIN booked b ON b.provider = i.provider AND b.currency = i.currency
    )
    SELECT coalesce(f.provider, n.provider) AS provider, coalesce(f.currency, n.currency) AS currency,
           coalesce(f.invoice, 0)::bigint AS invoice, coalesce(f.ledger, 0)::bigint AS ledger,
           coalesce(f.unexplained, 0)::bigint AS unexplained, coalesce(f.waiting, 0)::bigint AS waiting,
           coalesce(n.unbilled, 0)::bigint AS unbilled
    FROM figures f FULL OUTER JOIN unbilled n ON n.provider = f.provider AND n.currency = f.currency
    ORDER BY 1, 2`;
  return rows.map((row) => ({
    provider: row.provider,
    currency: row.currency,
    invoiceMicros: toTotal(row.invoice),
    ledgerMicros: toTotal(row.ledger),
    unexplainedMicros: toTotal(row.unexplained),
    /** Lines a hold took whose charge it has not applied yet. */
    waitingMicros: toTotal(row.waiting),
    /** Charged on the provider's holds that no imported line names. */
    notOnInvoiceMicros: toTotal(row.unbilled),
    differenceMicros: toTotal(row.invoice - row.ledger),
  }));
}

export type LedgerVersusInvoice = Awaited<ReturnType<typeof ledgerVersusInvoice>>;
