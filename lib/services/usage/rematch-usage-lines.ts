import type { Prisma } from "@/lib/db/client";
import type { Principal } from "@/lib/domain/principal";
import { settleLine } from "./settle-line";

type Waiting = { id: string; currency: string; attempt_ref: string; hold_ref: string | null };

/**
 * The unexplained lines of a job an attempt owns now (attached by finance, or reported since the
 * import) are matched to that attempt's hold and settle or correct it through the usage matching
 * path (decision 073), in the caller's transaction. Lines whose attempt has no hold keep waiting
 * with that reason. Returns how many a hold took.
 */
export async function rematchUsageLines(
  tx: Prisma.TransactionClient,
  actor: Principal,
  job: { provider: string; providerJobId: string },
): Promise<number> {
  const lines = await tx.$queryRaw<Waiting[]>`
    SELECT u.id::text, u.currency, a.id::text AS attempt_ref, h.id::text AS hold_ref
    FROM usage_lines u
    JOIN attempts a ON a.provider = u.provider AND a.provider_job_id = u.provider_job_id
    LEFT JOIN holds h ON h.attempt_ref = a.id
    WHERE u.provider = ${job.provider} AND u.provider_job_id = ${job.providerJobId}
      AND u.hold_ref IS NULL AND u.explained_at IS NULL
    ORDER BY u.usage_at, u.id FOR UPDATE OF u`;
  let matched = 0;
  for (const line of lines) {
    if (line.hold_ref === null) {
      await tx.$executeRaw`UPDATE usage_lines SET attempt_ref = ${line.attempt_ref}::uuid, unmatched_reason = 'no_hold'
                           WHERE id = ${line.id}::uuid`;
      continue;
    }
    await tx.$executeRaw`UPDATE usage_lines SET attempt_ref = ${line.attempt_ref}::uuid, hold_ref = ${line.hold_ref}::uuid,
                           unmatched_reason = NULL WHERE id = ${line.id}::uuid`;
    const outcome = await settleLine(tx, actor, {
      lineId: line.id,
      holdRef: line.hold_ref,
      currency: line.currency,
      how: `usage line of ${job.provider} job ${job.providerJobId}, matched once an operation owned the job`,
    });
    if (outcome.matched) matched += 1;
  }
  return matched;
}

/** The jobs of a provider with lines still waiting whose job some attempt with a hold owns now. */
export async function jobsNowOwned(tx: Prisma.TransactionClient, provider: string): Promise<string[]> {
  const rows = await tx.$queryRaw<{ job: string }[]>`
    SELECT DISTINCT u.provider_job_id AS job FROM usage_lines u
    JOIN attempts a ON a.provider = u.provider AND a.provider_job_id = u.provider_job_id
    JOIN holds h ON h.attempt_ref = a.id
    WHERE u.provider = ${provider} AND u.hold_ref IS NULL AND u.explained_at IS NULL AND u.unmatched_reason <> 'currency_differs'
    ORDER BY 1 LIMIT 500`;
  return rows.map((r) => r.job);
}
