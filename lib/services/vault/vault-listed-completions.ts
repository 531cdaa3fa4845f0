import type { Db } from "@/lib/db/client";
import { DEFAULT_VAULT_POLICY, type VaultPolicy, vaultKeeps } from "@/lib/domain/vault";
import type { ListedJob, ProviderAdapter } from "@/lib/providers/types";
import { recordVaultIntent } from "./record-vault-intent";

/** Status reads one sweep makes for the vault: a safety net beside webhooks and reports, not a poller. */
const LISTED_READS_PER_SWEEP = 50;

/**
 * Decision 075's third source, the provider's own job list: a job the list shows completed, that an
 * attempt owns, with no open case, no kept copy and nothing delivered, was never told to the product
 * (no webhook, no report). Its status is read once (GET only, outside any transaction, rule 9) and,
 * if its outputs are still there, its copy intent recorded like a webhook's. Returns the intents written.
 */
export async function vaultListedCompletions(
  db: Db,
  adapter: ProviderAdapter,
  listed: readonly ListedJob[],
  options: { policy?: VaultPolicy; signal?: AbortSignal } = {},
): Promise<number> {
  const policy = options.policy ?? DEFAULT_VAULT_POLICY;
  if (!vaultKeeps(policy, adapter.provider, adapter.capabilities.outputRetentionSeconds)) return 0;
  const completed = listed.filter((job) => job.status === "completed").map((job) => job.providerJobId);
  if (completed.length === 0) return 0;
  const untold = await db.$queryRaw<{ job: string; model: string }[]>`
    SELECT a.provider_job_id AS job, o.model FROM attempts a JOIN operations o ON o.id = a.operation_ref
    WHERE a.provider = ${adapter.provider} AND a.provider_job_id = ANY(${completed}::text[])
      AND NOT EXISTS (SELECT 1 FROM vault_copies v WHERE v.attempt_ref = a.id)
      AND NOT EXISTS (SELECT 1 FROM assets s WHERE s.attempt_ref = a.id AND s.published_at IS NOT NULL)
      AND NOT EXISTS (SELECT 1 FROM cases c WHERE c.operation_ref = a.operation_ref AND c.state <> 'resolved')
    ORDER BY a.created_at DESC LIMIT ${LISTED_READS_PER_SWEEP}`;
  let written = 0;
  for (const { job, model } of untold) {
    if (options.signal?.aborted) break;
    const status = await adapter
      .getJob({ providerJobId: job, model }, options.signal ? { signal: options.signal } : {})
      .catch(() => null);
    if (status)
      written += await recordVaultIntent(
        db,
        { provider: adapter.provider, providerJobId: job, status, source: "status" },
        policy,
      );
  }
  return written;
}
