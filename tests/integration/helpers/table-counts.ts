import type { PrismaClient } from "@/lib/db/client";

/** Row counts of every application table, to prove a refused request changed nothing. */
export async function tableCounts(db: PrismaClient): Promise<Record<string, number>> {
  const tables = await db.$queryRaw<{ table_name: string }[]>`
    SELECT table_name::text FROM information_schema.tables
    WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name NOT IN ('_prisma_migrations', 'rate_limit_buckets')
    ORDER BY table_name`;
  const counts: Record<string, number> = {};
  for (const { table_name } of tables) {
    const rows = await db.$queryRawUnsafe<{ n: bigint }[]>(`SELECT count(*) AS n FROM "${table_name}"`);
    counts[table_name] = Number(rows[0]?.n ?? 0);
  }
  return counts;
}

/**
 * The counts after a refused claim on a job (decision 039): nothing of the claim changed, but the
 * refusal is kept as one conflict row with a flag on each side's timeline.
 */
export function withRefusalKept(before: Record<string, number>): Record<string, number> {
  return {
    ...before,
    job_claim_conflicts: (before.job_claim_conflicts ?? 0) + 1,
    audit_events: (before.audit_events ?? 0) + 2,
  };
}
