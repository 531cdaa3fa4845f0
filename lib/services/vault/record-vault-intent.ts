import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { sqlRows } from "@/lib/db/sql-rows";
import { DEFAULT_OUTPUT_SECONDS, type VaultPolicy, vaultKeeps } from "@/lib/domain/vault";
import { PROVIDER_CAPABILITIES } from "@/lib/providers/capabilities";
import { withOutputExpiry } from "@/lib/providers/output-expiry";
import { fetchableOutputs } from "@/lib/providers/outputs";
import type { JobStatus, OutputRef, ProviderCapabilities } from "@/lib/providers/types";

/** How the product learned of the completion: a provider's signed webhook, a producer's report, a status read. */
export type VaultSource = "webhook" | "report" | "status";

/**
 * Decision 075: a completion of a job an attempt owns, learned while no open case of its operation
 * will copy the outputs, is written down as one intent per output (the URL kept whole, like
 * `output_urls`, and the provider's expiry), for the worker to copy after this commit (rule 9).
 * Nothing is written for a provider the policy leaves out, a job nobody owns, an operation with an
 * open case (its delivery copies them), an attempt already delivered, or inline bytes. Idempotent per
 * (attempt, output): a repeated webhook or report finds the rows and writes nothing (only a webhook
 * replaces a report's pending URLs). Returns the rows written.
 */
export async function recordVaultIntent(
  db: Db,
  input: VaultIntentInput,
  policy: VaultPolicy,
  now = new Date(),
): Promise<number> {
  const insert = vaultIntentInsert(input, policy, now);
  if (!insert) return 0;
  // One raw statement on the webhook's hot path, through the pool rather than Prisma (sql-rows.ts).
  const written = await sqlRows<{ written: number }>(db, Prisma.sql`${insert} RETURNING 1 AS written`);
  return written.length;
}

export type VaultIntentInput = { provider: string; providerJobId: string; status: JobStatus; source: VaultSource };

/**
 * `recordVaultIntent`'s statement, for a caller that writes it inside its own statement (an owned
 * job's completion, decision 081), written only when `gate` holds there; null when nothing is kept.
 */
export function vaultIntentInsert(
  input: VaultIntentInput,
  policy: VaultPolicy,
  now = new Date(),
  gate: Prisma.Sql = Prisma.sql`true`,
): Prisma.Sql | null {
  const capabilities = (PROVIDER_CAPABILITIES as Partial<Record<string, ProviderCapabilities>>)[input.provider];
  if (!capabilities || input.status.kind !== "completed" || input.status.outputsRemoved) return null;
  if (!vaultKeeps(policy, input.provider, capabilities.outputRetentionSeconds)) return null;
  const status = withOutputExpiry(input.status, capabilities, now);
  if (status.kind !== "completed") return null;
  const fallback = new Date(now.getTime() + DEFAULT_OUTPUT_SECONDS * 1000).toISOString();
  const rows = fetchableOutputs(status.outputs).map((row) => ({ ...row, expiresAt: row.expiresAt ?? fallback }));
  if (rows.length === 0) return null;
  return Prisma.sql`
    INSERT INTO vault_copies (operation_ref, attempt_ref, provider, provider_job_id, output_index, source, url,
                              content_type, declared_bytes, expires_at)
    SELECT a.operation_ref, a.id, a.provider, a.provider_job_id, o."outputIndex", ${input.source}, o.url,
           o."contentType", o.size, o."expiresAt"
    FROM attempts a
    CROSS JOIN jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
      AS o("outputIndex" int, url text, "contentType" text, size bigint, "expiresAt" timestamptz)
    WHERE a.provider = ${input.provider} AND a.provider_job_id = ${input.providerJobId} AND ${gate}
      AND NOT EXISTS (SELECT 1 FROM cases c WHERE c.operation_ref = a.operation_ref AND c.state <> 'resolved')
      AND NOT EXISTS (SELECT 1 FROM assets s WHERE s.attempt_ref = a.id AND s.published_at IS NOT NULL)
    ON CONFLICT (attempt_ref, output_index) DO UPDATE
      SET url = EXCLUDED.url, content_type = EXCLUDED.content_type, declared_bytes = EXCLUDED.declared_bytes,
          expires_at = EXCLUDED.expires_at, source = EXCLUDED.source
      -- The provider's signed word replaces a producer's report while nothing was copied yet (rule 17).
      WHERE vault_copies.status = 'pending' AND vault_copies.source = 'report' AND EXCLUDED.source = 'webhook'`;
}

/**
 * A producer's `completed` report that carries the output URLs it was handed (decision 075): kept
 * like a webhook's, on the attempt the report names, once its job is recorded. The provider's own
 * webhook, arriving later, replaces URLs a report gave while their copy is still pending.
 */
export async function recordReportedOutputs(
  db: Db,
  input: { producer: string; operationId: string; attemptId: string; outputs: OutputRef[] },
  policy: VaultPolicy,
): Promise<number> {
  const attempt = await db.attempt.findFirst({
    where: { attemptId: input.attemptId, operation: { producer: input.producer, operationId: input.operationId } },
    select: { provider: true, providerJobId: true },
  });
  if (!attempt?.providerJobId) return 0;
  const status: JobStatus = {
    kind: "completed",
    providerStatus: "reported completed by the producer",
    outputs: input.outputs,
    outputsRemoved: false,
  };
  return recordVaultIntent(
    db,
    { provider: attempt.provider, providerJobId: attempt.providerJobId, status, source: "report" },
    policy,
  );
}
