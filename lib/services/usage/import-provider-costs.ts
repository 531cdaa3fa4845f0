import { recordAudit } from "@/lib/audit/writer";
import type { Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import type { Principal } from "@/lib/domain/principal";
import { lineHashes, RUNWAY_CREDIT_CURRENCY, RUNWAY_CREDIT_MICROS, type UsageLineFacts } from "@/lib/domain/usage";
import type { ProviderAdapter } from "@/lib/providers/types";
import { requirePermission, requireUnscoped } from "../access/actor";
import { recordUsageLines, type UsageImportSummary } from "./record-usage-lines";

/** The providers whose job answer carries its own cost (docs/providers.md, "Usage and cost"): Runway's `cost.credits`. */
export const PROVIDERS_WITH_JOB_COST = ["runway"] as const;

type Candidate = { provider_job_id: string; model: string; at: Date };

/**
 * Reads the cost of up to `limit` Runway tasks whose holds have no cost from the API yet, through
 * the adapter (GET only, DESIGN rule 5), outside any transaction (rule 9), then stores each as a
 * usage line and settles or corrects its hold like a file's line (decision 073). A task that
 * answers without a final cost (still running, unknown, not found) is left for a later read.
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
  const hashes = lineHashes(`${adapter.provider}:api`, facts);
  const lines = facts.map((line, i) => ({ ...line, lineHash: hashes[i] ?? "" }));
  const summary = await inTransaction(db, async (tx) => {
    const result = await recordUsageLines(tx, actor, {
      provider: adapter.provider,
      source: "api",
      format: "runway_task_cost",
      sourceHash: `api:${adapter.provider}`,
      how: `${adapter.provider}'s own cost of the task, read from its API`,
      lines,
    });
    if (result.added > 0)
      await recordAudit(tx, {
        actor,
        kind: "usage_imported",
        after: {
          provider: adapter.provider,
          format: "runway_task_cost",
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
