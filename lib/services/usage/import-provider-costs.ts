import { recordAudit } from "@/lib/audit/writer";
import type { Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import type { Principal } from "@/lib/domain/principal";
import { lineHashes, RUNWAY_CREDIT_CURRENCY, RUNWAY_CREDIT_MICROS, type UsageLineFacts } from "@/lib/domain/usage";
import type { ProviderAdapter } from "@/lib/providers/types";
import { requirePermission, requireUnscoped } from "../access/actor";
import { type CostCandidate, pricedMetrics } from "./priced-metrics";
import { recordUsageLines, type UsageImportSummary } from "./record-usage-lines";

export { PROVIDERS_WITH_JOB_COST } from "@/lib/domain/usage";

type Candidate = CostCandidate;

/** How each provider's API gives a job's cost: Runway's task answer, fal's billing events, Replicate's metrics (decision 076). */
const FORMATS: Record<string, string> = {
  runway: "runway_task_cost",
  fal: "fal_billing_events",
  replicate: "replicate_metrics_priced",
};

/**
 * Reads the cost of up to `limit` jobs whose holds have no cost from the API yet, through the
 * adapter (GET only, DESIGN rule 5), outside any transaction (rule 9): Runway's task `cost.credits`,
 * fal's billing events by request ID, Replicate's `metrics` priced from the price table (an
 * estimate; no price for the model: not read). Each is stored as a usage line and settles or corrects its
 * hold like a file's line (decision 073). A job without a final cost yet (still running, unknown,
 * not found, not billed yet) is left for a later read.
 */
export async function importProviderCosts(
  db: Db,
  actor: Principal,
  adapter: ProviderAdapter,
  input: { limit: number },
): Promise<UsageImportSummary & { asked: number }> {
  requireUnscoped(requirePermission(actor, "usage:import"));
  const candidates = await db.$queryRaw<Candidate[]>`
    SELECT a.provider_job_id, o.model, coalesce(a.submitted_at, a.created_at) AS at
    FROM attempts a JOIN holds h ON h.attempt_ref = a.id JOIN operations o ON o.id = a.operation_ref
    WHERE a.provider = ${adapter.provider} AND a.provider_job_id IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM usage_lines u WHERE u.hold_ref = h.id AND u.source = 'api')
    ORDER BY a.created_at, a.id LIMIT ${input.limit}`;
  const facts = adapter.jobCosts
    ? await billedCosts(adapter, candidates)
    : adapter.jobMetrics
      ? await pricedMetrics(db, adapter, candidates)
      : await taskCosts(adapter, candidates);
  const format = FORMATS[adapter.provider] ?? `${adapter.provider}_api_cost`;
  const hashes = lineHashes(`${adapter.provider}:api`, facts);
  const lines = facts.map((line, i) => ({ ...line, lineHash: hashes[i] ?? "" }));
  const summary = await inTransaction(db, async (tx) => {
    const result = await recordUsageLines(tx, actor, {
      provider: adapter.provider,
      source: "api",
      format,
      sourceHash: `api:${adapter.provider}`,
      how: `${adapter.provider}'s own cost of the job, read from its API`,
      lines,
    });
    if (result.added > 0)
      await recordAudit(tx, {
        actor,
        kind: "usage_imported",
        after: {
          provider: adapter.provider,
          format,
          read: result.read,
          added: result.added,
          matched: result.matched,
          waiting: result.waiting,
          unexplained: result.unexplained,
        },
      });
    return result;
  });
  return { ...summary, asked: candidates.length };
}

/** Runway: each task read once; its final `cost.credits` at $0.01 a credit. */
async function taskCosts(adapter: ProviderAdapter, candidates: Candidate[]): Promise<UsageLineFacts[]> {
  const facts: UsageLineFacts[] = [];
  for (const [i, job] of candidates.entries()) {
    const status = await adapter.getJob({ providerJobId: job.provider_job_id, model: job.model });
    const credits = status.kind === "completed" || status.kind === "failed" ? status.evidence?.credits : undefined;
    if (credits === undefined || !Number.isSafeInteger(credits * RUNWAY_CREDIT_MICROS)) continue;
    facts.push({
      providerJobId: job.provider_job_id,
      providerAccount: null,
      model: job.model,
      usageAt: job.at,
      amountMicros: credits * RUNWAY_CREDIT_MICROS,
      currency: RUNWAY_CREDIT_CURRENCY,
      lineNumber: i + 1,
    });
  }
  return facts;
}

/** fal: the billing events of the candidates' requests, read in batches; a request not billed yet is absent. */
async function billedCosts(adapter: ProviderAdapter, candidates: Candidate[]): Promise<UsageLineFacts[]> {
  const wanted = new Set(candidates.map((job) => job.provider_job_id));
  const read = await adapter.jobCosts?.([...wanted]);
  if (read?.kind !== "ok") return [];
  return read.costs
    .filter((cost) => cost.providerJobId !== null && wanted.has(cost.providerJobId))
    .map((cost, i) => ({ ...cost, lineNumber: i + 1 }));
}
