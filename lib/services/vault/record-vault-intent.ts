import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { DEFAULT_OUTPUT_SECONDS, type VaultPolicy, vaultKeeps } from "@/lib/domain/vault";
import { PROVIDER_CAPABILITIES } from "@/lib/providers/capabilities";
import { withOutputExpiry } from "@/lib/providers/output-expiry";
import { fetchableOutputs } from "@/lib/providers/outputs";
import type { JobStatus, ProviderCapabilities } from "@/lib/providers/types";

/** How the product learned of the completion: a provider's signed webhook, a producer's report, a status read. */
export type VaultSource = "webhook" | "report" | "status";

/**
 * Decision 075: a completion of a job an attempt owns, learned while no open case of its operation
 * will copy the outputs, is written down as one intent per output (the URL kept whole, like
 * `output_urls`, and the provider's expiry), for the worker to copy after this commit (rule 9).
 * Nothing is written for a provider the policy leaves out, a job nobody owns, an operation with an
 * open case (its delivery copies them), an attempt already delivered, or inline bytes. Idempotent per (attempt, output): a
 * repeated webhook or report finds the rows and writes nothing. Returns the rows written.
 */
export async function recordVaultIntent(
  db: Db,
  input: { provider: string; providerJobId: string; status: JobStatus; source: VaultSource },
  policy: VaultPolicy,
  now = new Date(),
): Promise<number> {
  const capabilities = (PROVIDER_CAPABILITIES as Partial<Record<string, ProviderCapabilities>>)[input.provider];
  if (!capabilities || input.status.kind !== "completed" || input.status.outputsRemoved) return 0;
  if (!vaultKeeps(policy, input.provider, capabilities.outputRetentionSeconds)) return 0;
  const status = withOutputExpiry(input.status, capabilities, now);
  if (status.kind !== "completed") return 0;
  const fallback = new Date(now.getTime() + DEFAULT_OUTPUT_SECONDS * 1000).toISOString();
  const rows = fetchableOutputs(status.outputs).map((row) => ({ ...row, expiresAt: row.expiresAt ?? fallback }));
  if (rows.length === 0) return 0;
  return db.$executeRaw(Prisma.sql`
    INSERT INTO vault_copies (operation_ref, attempt_ref, provider, provider_job_id, output_index, source, url,
                              content_type, declared_bytes, expires_at)
    SELECT a.operation_ref, a.id, a.provider, a.provider_job_id, o."outputIndex", ${input.source}, o.url,
           o."contentType", o.size, o."expiresAt"
    FROM attempts a
    CROSS JOIN jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
      AS o("outputIndex" int, url text, "contentType" text, size bigint, "expiresAt" timestamptz)
    WHERE a.provider = ${input.provider} AND a.provider_job_id = ${input.providerJobId}
      AND NOT EXISTS (SELECT 1 FROM cases c WHERE c.operation_ref = a.operation_ref AND c.state <> 'resolved')
      AND NOT EXISTS (SELECT 1 FROM assets s WHERE s.attempt_ref = a.id AND s.published_at IS NOT NULL)
    ON CONFLICT (attempt_ref, output_index) DO NOTHING`);
}
