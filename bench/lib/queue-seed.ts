import pg from "pg";

/** Runs one statement on a short-lived connection (seeding and checks, never the measured work). */
export async function sql<T extends pg.QueryResultRow = pg.QueryResultRow>(
  url: string,
  text: string,
  values: unknown[] = [],
): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** A reviewer to own the seeded decisions (decisions.reviewer_id must name a user). */
export async function seedReviewer(url: string): Promise<string> {
  const [row] = await sql<{ id: string }>(
    url,
    `INSERT INTO users (email, name, roles) VALUES ($1, 'bench reviewer', ARRAY['reviewer']::"Role"[]) RETURNING id`,
    [`bench-reviewer-${Date.now()}@example.com`],
  );
  if (!row) throw new Error("no reviewer row");
  return row.id;
}

/**
 * `count` delivery cases, each approved for `retry_delivery` with one ready action: the rows an
 * approval leaves behind (operation, attempt, case at state `ready` version 2, decision, action).
 * Holds are left out: claiming and finishing never read them.
 */
export async function seedReadyDeliveries(url: string, input: { count: number; tag: string }): Promise<void> {
  const reviewerId = await seedReviewer(url);
  await sql(
    url,
    `WITH ops AS (
       INSERT INTO operations (producer, operation_id, provider, model, request_fingerprint)
       SELECT 'bench', $1 || '-' || n, 'replicate', 'omni-flash-720p',
              'sha256:' || encode(sha256(convert_to($1 || '-' || n, 'UTF8')), 'hex')
       FROM generate_series(1, $2::int) AS n
       RETURNING id, operation_id, request_fingerprint
     ), atts AS (
       INSERT INTO attempts (operation_ref, attempt_id, kind, provider_job_id)
       SELECT id, operation_id || '-a1', 'original', 'job-' || operation_id FROM ops
       RETURNING id, operation_ref, attempt_id, provider_job_id
     ), cs AS (
       INSERT INTO cases (operation_ref, attempt_ref, producer, operation_id, attempt_id, provider, model, stage,
                          state, version, provider_job_id, registered_stage, registered_job_id,
                          registered_fingerprint, currency, last_evidence)
       SELECT ops.id, atts.id, 'bench', ops.operation_id, atts.attempt_id, 'replicate', 'omni-flash-720p',
              'delivery', 'ready', 2, atts.provider_job_id, 'delivery', atts.provider_job_id,
              ops.request_fingerprint, 'USD', '{"summary":"seeded"}'::jsonb
       FROM ops JOIN atts ON atts.operation_ref = ops.id
       RETURNING id
     ), ds AS (
       INSERT INTO decisions (case_id, episode, kind, action_kind, reviewer_id, evidence)
       SELECT id, 1, 'approve', 'retry_delivery', $3::uuid, 'seeded approval' FROM cs
       RETURNING id, case_id
     )
     INSERT INTO recovery_actions (case_id, decision_id, kind, ready_at)
     SELECT case_id, id, 'retry_delivery', now() - interval '1 second' FROM ds`,
    [input.tag, input.count, reviewerId],
  );
  await sql(url, "VACUUM ANALYZE");
}
