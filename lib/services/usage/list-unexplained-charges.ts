import type { Db } from "@/lib/db/client";
import type { Principal } from "@/lib/domain/principal";
import { CANDIDATE_WINDOW_MS, type CandidateOperation, rankCandidates } from "@/lib/domain/unexplained-charges";
import { requirePermission, visibleProducers } from "../access/actor";
import { toTotal } from "../finance/finance-micros";
import { type UnexplainedChargeRow, unexplainedChargesSql } from "./unexplained-charges-sql";

export type UnexplainedChargesQuery = { provider?: string | undefined; page: number; pageSize: number };

type CandidateRow = {
  case_id: string;
  attempt_id: string;
  stage: string;
  state: string;
  uncertain: boolean;
  operation_id: string;
  producer: string;
  model: string;
  fingerprint: string;
  submitted_at: Date | null;
  opened_at: Date;
};

/**
 * Finance's list "Charges no operation explains" (decision 074): each provider job (or job-less
 * line) no operation owns, with its money by currency from the usage lines, what the provider's
 * list said of it, and the job-less sends whose request fingerprint, model and time best match it
 * (the reconciliation score): uncertain submissions, and earlier sends of operations whose case
 * went on without their job (decision 080). Newest first, a page at a time, optionally of one provider.
 * Such a charge names no producer, so a person limited to some producers sees none (decision 035).
 */
export async function listUnexplainedCharges(db: Db, actor: Principal, query: UnexplainedChargesQuery) {
  requirePermission(actor, "usage:import");
  const empty = { visible: false, total: 0, page: query.page, pageSize: query.pageSize, charges: [] };
  if (visibleProducers(actor, null) !== null) return empty;
  const provider = query.provider ?? null;
  const [counted] = await db.$queryRaw<{ n: bigint }[]>`
    WITH charges AS (${unexplainedChargesSql(provider)})
    SELECT count(DISTINCT (provider, coalesce(provider_job_id, line_id)))::bigint AS n FROM charges`;
  const keys = await db.$queryRaw<{ provider: string; key: string }[]>`
    WITH charges AS (${unexplainedChargesSql(provider)})
    SELECT provider, coalesce(provider_job_id, line_id) AS key FROM charges
    GROUP BY 1, 2 ORDER BY max(at) DESC, 1, 2
    LIMIT ${query.pageSize} OFFSET ${(query.page - 1) * query.pageSize}`;
  const rows =
    keys.length === 0
      ? []
      : await db.$queryRaw<UnexplainedChargeRow[]>`
          WITH charges AS (${unexplainedChargesSql(provider)})
          SELECT * FROM charges WHERE (provider, coalesce(provider_job_id, line_id)) IN
            (SELECT * FROM unnest(${keys.map((k) => k.provider)}::text[], ${keys.map((k) => k.key)}::text[]))`;
  const charges = [];
  for (const key of keys) {
    const parts = rows.filter((r) => r.provider === key.provider && (r.provider_job_id ?? r.line_id) === key.key);
    const first = parts.find((r) => r.listed) ?? parts[0];
    if (!first) continue;
    const facts = { model: first.model, at: first.at, fingerprint: first.request_fingerprint };
    const candidates = first.provider_job_id ? rankCandidates(facts, await candidatesNear(db, first)) : [];
    charges.push({
      provider: first.provider,
      providerJobId: first.provider_job_id,
      usageLineId: first.line_id,
      model: first.model,
      at: first.at.toISOString(),
      listed: parts.some((r) => r.listed),
      status: first.status,
      providerStatus: first.provider_status,
      firstSeenAt: first.first_seen_at?.toISOString() ?? null,
      lines: parts.reduce((sum, r) => sum + r.lines, 0),
      money: parts
        .filter((r) => r.currency !== null)
        .map((r) => ({ currency: r.currency ?? "", micros: toTotal(r.micros) })),
      candidates: candidates.map((c) => ({
        caseId: c.caseId,
        attemptId: c.attemptId,
        stage: c.stage,
        state: c.state,
        uncertain: c.uncertain,
        operationId: c.operationId,
        producer: c.producer,
        model: c.model,
        submittedAt: (c.submittedAt ?? c.openedAt).toISOString(),
        matched: c.matched,
        confidence: c.confidence,
        minutesApart: Math.round(c.distanceMs / 60_000),
      })),
    });
  }
  return { visible: true, total: Number(counted?.n ?? 0), page: query.page, pageSize: query.pageSize, charges };
}

export type UnexplainedChargesView = Awaited<ReturnType<typeof listUnexplainedCharges>>;
export type UnexplainedCharge = UnexplainedChargesView["charges"][number];

/**
 * The sends at the charge's provider within a day of it that never learned their job and hold
 * money the job's charge could land on (decision 080): a parked uncertain submission's attempt, or
 * any other job-less attempt of an operation with a case, unless it is the current attempt of a
 * case someone is working on (its review attaches it). The attempt's own time where it has one,
 * else when it was recorded.
 */
async function candidatesNear(db: Db, charge: UnexplainedChargeRow): Promise<CandidateOperation[]> {
  const from = new Date(charge.at.getTime() - CANDIDATE_WINDOW_MS);
  const to = new Date(charge.at.getTime() + CANDIDATE_WINDOW_MS);
  const rows = await db.$queryRaw<CandidateRow[]>`
    SELECT c.id::text AS case_id, a.attempt_id, c.stage::text, c.state::text,
           (c.attempt_ref = a.id AND c.stage = 'submission_uncertain' AND c.state = 'parked') AS uncertain,
           c.operation_id, c.producer, c.model, o.request_fingerprint AS fingerprint,
           coalesce(a.submitted_at, a.created_at) AS submitted_at, c.opened_at
    FROM attempts a JOIN operations o ON o.id = a.operation_ref JOIN cases c ON c.operation_ref = o.id
    WHERE a.provider = ${charge.provider} AND a.provider_job_id IS NULL
      AND coalesce(a.submitted_at, a.created_at) BETWEEN ${from} AND ${to}
      AND EXISTS (SELECT 1 FROM holds h WHERE h.attempt_ref = a.id)
      AND (c.attempt_ref <> a.id OR c.state = 'resolved' OR (c.stage = 'submission_uncertain' AND c.state = 'parked'))
    ORDER BY abs(extract(epoch FROM coalesce(a.submitted_at, a.created_at) - ${charge.at}::timestamptz)), a.id
    LIMIT 100`;
  return rows.map((r) => ({
    caseId: r.case_id,
    attemptId: r.attempt_id,
    stage: r.stage,
    state: r.state,
    uncertain: r.uncertain,
    operationId: r.operation_id,
    producer: r.producer,
    model: r.model,
    fingerprint: r.fingerprint,
    submittedAt: r.submitted_at,
    openedAt: r.opened_at,
  }));
}
