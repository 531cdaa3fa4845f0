import { Prisma } from "@/lib/db/generated/prisma/client";

/**
 * The charges no operation explains (decision 074), one row per charge and currency: usage lines
 * no hold took and finance has not explained, grouped by their job (a line naming no job is a
 * charge of its own), beside the jobs the daily sweep found that no attempt owns and nobody has
 * resolved (currency null where no line prices them). A job an attempt owns since the sweep saw it
 * (attached or reported) stops counting here at once.
 */
export function unexplainedChargesSql(provider: string | null): Prisma.Sql {
  const lineProvider = provider === null ? Prisma.sql`TRUE` : Prisma.sql`u.provider = ${provider}`;
  const jobProvider = provider === null ? Prisma.sql`TRUE` : Prisma.sql`j.provider = ${provider}`;
  return Prisma.sql`
    WITH lines AS (
      SELECT u.provider, u.provider_job_id, CASE WHEN u.provider_job_id IS NULL THEN u.id::text END AS line_id,
             u.currency, sum(u.amount_micros)::bigint AS micros, count(*)::int AS lines,
             min(u.usage_at) AS at, max(u.model) AS model
      FROM usage_lines u
      WHERE u.hold_ref IS NULL AND u.explained_at IS NULL AND ${lineProvider}
      GROUP BY 1, 2, 3, 4
    ), jobs AS (
      SELECT j.* FROM unowned_jobs j
      WHERE j.resolution IS NULL AND ${jobProvider}
        AND NOT EXISTS (SELECT 1 FROM attempts a WHERE a.provider = j.provider AND a.provider_job_id = j.provider_job_id)
    )
    SELECT coalesce(l.provider, j.provider) AS provider, coalesce(l.provider_job_id, j.provider_job_id) AS provider_job_id,
           l.line_id, l.currency, coalesce(l.micros, 0)::bigint AS micros, coalesce(l.lines, 0)::int AS lines,
           coalesce(j.job_created_at, l.at) AS at, coalesce(j.model, l.model) AS model,
           j.status, j.provider_status, j.request_fingerprint, j.first_seen_at, (j.id IS NOT NULL) AS listed
    FROM lines l FULL OUTER JOIN jobs j ON j.provider = l.provider AND j.provider_job_id = l.provider_job_id`;
}

export type UnexplainedChargeRow = {
  provider: string;
  provider_job_id: string | null;
  line_id: string | null;
  currency: string | null;
  micros: bigint;
  lines: number;
  at: Date;
  model: string | null;
  status: string | null;
  provider_status: string | null;
  request_fingerprint: string | null;
  first_seen_at: Date | null;
  listed: boolean;
};
