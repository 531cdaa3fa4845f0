import { seedReviewer, sql } from "./queue-seed";

export const DRAIN_HOLD_MICROS = 250_000;

/**
 * `count` polling cases approved for `resume_poll`, each with its held budget (hold and reserve
 * entry): the rows parking and approval leave behind. Returns their provider job ids, which the
 * simulator is then seeded with as finished jobs, so one status request settles each hold and one
 * download delivers each video.
 */
export async function seedDrain(url: string, input: { count: number; tag: string }): Promise<string[]> {
  const reviewerId = await seedReviewer(url);
  const rows = await sql<{ job: string }>(
    url,
    `WITH ops AS (
       INSERT INTO operations (producer, operation_id, provider, model, request_fingerprint)
       SELECT 'drain-shop', $1 || '-' || n, 'replicate', 'minimax/video-01',
              'sha256:' || encode(sha256(convert_to($1 || '-' || n, 'UTF8')), 'hex')
       FROM generate_series(1, $2::int) AS n
       RETURNING id, operation_id, request_fingerprint
     ), atts AS (
       INSERT INTO attempts (operation_ref, attempt_id, kind, provider_job_id, submitted_at)
       SELECT id, operation_id || '-a1', 'original', 'job-' || operation_id, now() - interval '1 hour' FROM ops
       RETURNING id, operation_ref, attempt_id, provider_job_id
     ), cs AS (
       INSERT INTO cases (operation_ref, attempt_ref, producer, operation_id, attempt_id, provider, model, stage,
                          state, version, provider_job_id, registered_stage, registered_job_id,
                          registered_fingerprint, held_micros, currency, last_evidence, submitted_at)
       SELECT ops.id, atts.id, 'drain-shop', ops.operation_id, atts.attempt_id, 'replicate', 'minimax/video-01',
              'polling', 'ready', 2, atts.provider_job_id, 'polling', atts.provider_job_id,
              ops.request_fingerprint, $3::bigint, 'USD', '{"summary":"status checks exhausted"}'::jsonb,
              now() - interval '1 hour'
       FROM ops JOIN atts ON atts.operation_ref = ops.id
       RETURNING id, attempt_ref, operation_id, provider_job_id
     ), hs AS (
       INSERT INTO holds (hold_id, producer, case_id, attempt_ref, amount_micros, currency)
       SELECT 'hold-' || operation_id, 'drain-shop', id, attempt_ref, $3::bigint, 'USD' FROM cs
       RETURNING id
     ), reserved AS (
       INSERT INTO ledger_entries (hold_ref, kind, amount_micros, actor_label)
       SELECT id, 'reserve', $3::bigint, 'api key drain-shop' FROM hs
     ), ds AS (
       INSERT INTO decisions (case_id, episode, kind, action_kind, reviewer_id, evidence)
       SELECT id, 1, 'approve', 'resume_poll', $4::uuid, 'resume the status checks' FROM cs
       RETURNING id, case_id
     ), acts AS (
       INSERT INTO recovery_actions (case_id, decision_id, kind, ready_at)
       SELECT case_id, id, 'resume_poll', now() - interval '1 second' FROM ds
     )
     SELECT provider_job_id AS job FROM cs`,
    [input.tag, input.count, DRAIN_HOLD_MICROS, reviewerId],
  );
  await sql(url, "VACUUM ANALYZE");
  return rows.map((row) => row.job);
}
