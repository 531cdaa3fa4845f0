import type { PrismaClient } from "../../../lib/db/client";

/**
 * Bulk-creates `count` polling cases that a reviewer has approved: each with its operation,
 * attempt, approving decision and one ready `resume_poll` action, in one statement. The shape is
 * what parkCase + approveCase leave behind, minus holds and audit rows, which claiming never reads.
 * Returns the action IDs.
 */
export async function seedReadyActions(
  db: PrismaClient,
  input: { count: number; reviewerId: string; tag: string },
): Promise<string[]> {
  const rows = await db.$queryRaw<{ id: string }[]>`
    WITH ops AS (
      INSERT INTO operations (producer, operation_id, provider, model, request_fingerprint)
      SELECT 'bulk-seed', ${input.tag} || '-' || n, 'replicate', 'omni-flash-720p',
             'sha256:' || encode(sha256(convert_to(${input.tag} || '-' || n, 'UTF8')), 'hex')
      FROM generate_series(1, ${input.count}::int) AS n
      RETURNING id, operation_id, request_fingerprint
    ), atts AS (
      INSERT INTO attempts (operation_ref, attempt_id, kind, provider_job_id)
      SELECT id, operation_id || '-a1', 'original', 'job-' || operation_id FROM ops
      RETURNING id, operation_ref, attempt_id, provider_job_id
    ), cs AS (
      INSERT INTO cases (operation_ref, attempt_ref, producer, operation_id, attempt_id, provider, model, stage,
                         state, version, provider_job_id, registered_stage, registered_job_id,
                         registered_fingerprint, currency, last_evidence)
      SELECT ops.id, atts.id, 'bulk-seed', ops.operation_id, atts.attempt_id, 'replicate', 'omni-flash-720p',
             'polling', 'ready', 2, atts.provider_job_id, 'polling', atts.provider_job_id,
             ops.request_fingerprint, 'USD', '{"summary":"seeded"}'::jsonb
      FROM ops JOIN atts ON atts.operation_ref = ops.id
      RETURNING id
    ), ds AS (
      INSERT INTO decisions (case_id, episode, kind, action_kind, reviewer_id, evidence)
      SELECT id, 1, 'approve', 'resume_poll', ${input.reviewerId}::uuid, 'seeded approval' FROM cs
      RETURNING id, case_id
    )
    INSERT INTO recovery_actions (case_id, decision_id, kind, ready_at)
    SELECT case_id, id, 'resume_poll', now() - interval '1 second' FROM ds
    RETURNING id`;
  return rows.map((row) => row.id);
}
