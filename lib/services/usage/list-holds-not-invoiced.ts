import type { Db } from "@/lib/db/client";
import type { Principal } from "@/lib/domain/principal";
import { requirePermission, requireUnscoped } from "../access/actor";
import { toTotal } from "../finance/finance-micros";

/** Holds on one page, the newest charged first. */
export const HOLDS_NOT_INVOICED_PAGE = 50;

type Row = {
  hold_id: string;
  producer: string;
  currency: string;
  status: string;
  provider: string;
  operation_id: string;
  attempt_id: string;
  provider_job_id: string | null;
  case_id: string | null;
  charged: bigint;
  charged_at: Date;
};

/**
 * The holds behind "Charged, on no imported line" (decisions 080, 084): what the ledger charged on a
 * provider's hold that no imported usage line names, newest first. A send the invoice has not billed
 * yet, or billed nothing; one whose line is still unexplained; or, when its send records no job, one
 * whose job another send's shop named as its own: finance asks the shop which job it made, and moves
 * that job here. Every producer's money, so unscoped only.
 */
export async function listHoldsNotInvoiced(db: Db, actor: Principal, input: { provider?: string; page?: number } = {}) {
  requireUnscoped(requirePermission(actor, "usage:import"));
  const provider = input.provider ?? null;
  const rows = await db.$queryRaw<Row[]>`
    SELECT h.hold_id, h.producer, h.currency, h.status::text AS status, a.provider, o.operation_id, a.attempt_id,
           a.provider_job_id, c.id::text AS case_id, sum(e.amount_micros)::bigint AS charged,
           max(e.created_at) AS charged_at
    FROM ledger_entries e JOIN holds h ON h.id = e.hold_ref JOIN attempts a ON a.id = h.attempt_ref
    JOIN operations o ON o.id = a.operation_ref LEFT JOIN cases c ON c.operation_ref = o.id
    WHERE e.kind IN ('settle', 'overage', 'late_charge', 'adjustment')
      AND (${provider}::text IS NULL OR a.provider = ${provider})
      AND NOT EXISTS (SELECT 1 FROM usage_lines u WHERE u.hold_ref = h.id)
    GROUP BY h.id, a.id, o.id, c.id HAVING sum(e.amount_micros) <> 0
    ORDER BY charged_at DESC, h.hold_id
    LIMIT ${HOLDS_NOT_INVOICED_PAGE} OFFSET ${((input.page ?? 1) - 1) * HOLDS_NOT_INVOICED_PAGE}`;
  return rows.map((row) => ({
    holdId: row.hold_id,
    producer: row.producer,
    provider: row.provider,
    operationId: row.operation_id,
    attemptId: row.attempt_id,
    /** The job its send records; null when it never learned one (its job may be recorded on another send). */
    providerJobId: row.provider_job_id,
    caseId: row.case_id,
    status: row.status,
    chargedMicros: toTotal(row.charged),
    currency: row.currency,
    chargedAt: row.charged_at.toISOString(),
  }));
}

export type HoldsNotInvoiced = Awaited<ReturnType<typeof listHoldsNotInvoiced>>;
