import type { Db } from "@/lib/db/client";
import type { Principal } from "@/lib/domain/principal";
import { rankCandidates } from "@/lib/domain/unexplained-charges";
import { requirePermission, visibleProducers } from "../access/actor";
import { toTotal } from "../finance/finance-micros";
import { candidatesOfCharges } from "./charge-candidates";
import { type UnexplainedChargeRow, unexplainedChargesSql } from "./unexplained-charges-sql";

export type UnexplainedChargesQuery = { provider?: string | undefined; page: number; pageSize: number };

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
  const found = keys.flatMap((key) => {
    const parts = rows.filter((r) => r.provider === key.provider && (r.provider_job_id ?? r.line_id) === key.key);
    const first = parts.find((r) => r.listed) ?? parts[0];
    return first ? [{ parts, first }] : [];
  });
  // A page's candidates in one statement, not one per charge: a page is up to a hundred charges.
  const withJob = found.filter(({ first }) => first.provider_job_id !== null);
  const near = await candidatesOfCharges(
    db,
    withJob.map(({ first }) => ({ provider: first.provider, at: first.at })),
  );
  const sends = new Map(withJob.map(({ first }, i) => [first, near[i] ?? []]));
  const charges = [];
  for (const { parts, first } of found) {
    const facts = { model: first.model, at: first.at, fingerprint: first.request_fingerprint };
    const candidates = first.provider_job_id ? rankCandidates(facts, sends.get(first) ?? []) : [];
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
