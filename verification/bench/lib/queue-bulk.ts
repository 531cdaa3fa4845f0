import pg from "pg";
import { sql } from "./queue-seed";

export const BULK_MODEL = "bulk-model";

/**
 * `count` parked polling cases of one model (the bulk filter's target) with their holds, plus
 * `others` parked cases in other stages and models so the filter and the queue have company.
 */
export async function seedParked(url: string, input: { count: number; others: number }): Promise<void> {
  await sql(
    url,
    `WITH src AS (
       SELECT n, n <= $1 AS target FROM generate_series(1, $1::int + $2::int) AS n
     ), ops AS (
       INSERT INTO operations (producer, operation_id, provider, model, request_fingerprint)
       SELECT 'bulk-shop', 'bulk-' || n, 'replicate', CASE WHEN target THEN $3 ELSE 'other-model' END,
              'sha256:' || encode(sha256(convert_to('bulk-' || n, 'UTF8')), 'hex')
       FROM src
       RETURNING id, operation_id, model, request_fingerprint
     ), atts AS (
       INSERT INTO attempts (operation_ref, attempt_id, kind, provider_job_id)
       SELECT id, operation_id || '-a1', 'original', 'job-' || operation_id FROM ops
       RETURNING id, operation_ref, attempt_id, provider_job_id
     ), cs AS (
       INSERT INTO cases (operation_ref, attempt_ref, producer, operation_id, attempt_id, provider, model, stage,
                          state, version, provider_job_id, registered_stage, registered_job_id,
                          registered_fingerprint, held_micros, currency, last_evidence, opened_at)
       SELECT ops.id, atts.id, 'bulk-shop', ops.operation_id, atts.attempt_id, 'replicate', ops.model,
              s.stage::"Stage", 'parked', 1, atts.provider_job_id, s.stage::"Stage", atts.provider_job_id,
              ops.request_fingerprint, 100000, 'USD', '{"summary":"status checks exhausted"}'::jsonb,
              now() - make_interval(secs => (random() * 86400)::int)
       FROM ops JOIN atts ON atts.operation_ref = ops.id
       CROSS JOIN LATERAL (SELECT CASE WHEN ops.model = $3 THEN 'polling'
                                       ELSE (ARRAY['polling', 'delivery'])[1 + (hashtext(ops.operation_id) & 1)] END
                           AS stage) s
       RETURNING id, attempt_ref, operation_id
     ), hs AS (
       INSERT INTO holds (hold_id, producer, case_id, attempt_ref, amount_micros, currency)
       SELECT 'hold-' || operation_id, 'bulk-shop', id, attempt_ref, 100000, 'USD' FROM cs
       RETURNING id
     )
     INSERT INTO ledger_entries (hold_ref, kind, amount_micros, actor_label)
     SELECT id, 'reserve', 100000, 'api key bulk-shop' FROM hs`,
    [input.count, input.others, BULK_MODEL],
  );
  await sql(url, "VACUUM ANALYZE");
}

/**
 * The same rows in hand-written SQL, in one transaction: every targeted case to `ready` with its
 * audit event (same before/after/evidence), decision and action. Returns the cases it approved.
 */
export async function rawBulkApprove(
  url: string,
  input: { reviewerId: string; reviewerEmail: string; evidence: string },
): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("BEGIN");
    const { rows } = await client.query<{ approved: string }>(
      `WITH moved AS (
         UPDATE cases c SET state = 'ready', version = c.version + 1, updated_at = now()
         WHERE c.stage = 'polling' AND c.state = 'parked' AND c.model = $4
         RETURNING c.id, c.episode, c.stage, c.provider_job_id, c.version
       ), audited AS (
         INSERT INTO audit_events (case_id, episode, actor_kind, actor_id, actor_label, kind, before, after, evidence)
         SELECT id, episode, 'user', $1, $2, 'approved',
                jsonb_build_object('stage', stage, 'state', 'parked', 'providerJobId', provider_job_id, 'version', version - 1),
                jsonb_build_object('stage', stage, 'state', 'ready', 'providerJobId', provider_job_id, 'version', version),
                jsonb_build_object('text', $3::text, 'action', 'resume_poll')
         FROM moved
       ), decided AS (
         INSERT INTO decisions (case_id, episode, kind, action_kind, reviewer_id, evidence)
         SELECT id, episode, 'approve', 'resume_poll', $1::uuid, $3 FROM moved
         RETURNING id, case_id
       ), acted AS (
         INSERT INTO recovery_actions (case_id, decision_id, kind)
         SELECT case_id, id, 'resume_poll' FROM decided
         RETURNING id
       )
       SELECT count(*) AS approved FROM acted`,
      [input.reviewerId, input.reviewerEmail, input.evidence, BULK_MODEL],
    );
    await client.query("COMMIT");
    return Number(rows[0]?.approved ?? 0);
  } catch (error) {
    await client.query("ROLLBACK");
    throw error;
  } finally {
    await client.end();
  }
}

/**
 * Per case: exactly one decision, one action and one `approved` event, and the state moved once.
 * The fingerprint leaves out the bulk action an event names (the baseline has none); `namingBulk`
 * counts the events that name one.
 */
export async function bulkRows(url: string) {
  const [row] = await sql<Record<string, string>>(
    url,
    `SELECT
       (SELECT count(*) FROM cases WHERE model = $1 AND state = 'ready' AND version = 2) AS ready,
       (SELECT count(*) FROM cases WHERE model = $1) AS targeted,
       (SELECT count(*) FROM cases WHERE model <> $1 AND state <> 'parked') AS others_touched,
       (SELECT count(DISTINCT d.case_id) FILTER (WHERE per.n = 1) FROM decisions d
          JOIN (SELECT case_id, count(*) AS n FROM decisions GROUP BY case_id) per ON per.case_id = d.case_id) AS one_decision,
       (SELECT count(*) FROM (SELECT case_id FROM recovery_actions GROUP BY case_id HAVING count(*) = 1) a) AS one_action,
       (SELECT count(*) FROM (SELECT case_id FROM audit_events WHERE kind = 'approved' GROUP BY case_id HAVING count(*) = 1) e)
         AS one_event,
       (SELECT count(*) FROM audit_events WHERE kind = 'approved' AND evidence ? 'bulkPreviewId') AS naming_bulk,
       (SELECT md5(string_agg(o.operation_id || e.before::text || e.after::text
                              || (e.evidence - 'bulkPreviewId')::text || e.actor_label || d.evidence || a.kind::text,
                              ',' ORDER BY o.operation_id))
          FROM audit_events e JOIN cases o ON o.id = e.case_id JOIN decisions d ON d.case_id = o.id
          JOIN recovery_actions a ON a.decision_id = d.id WHERE e.kind = 'approved') AS fingerprint`,
    [BULK_MODEL],
  );
  return {
    ready: Number(row?.ready),
    targeted: Number(row?.targeted),
    othersTouched: Number(row?.others_touched),
    oneDecision: Number(row?.one_decision),
    oneAction: Number(row?.one_action),
    oneEvent: Number(row?.one_event),
    namingBulk: Number(row?.naming_bulk),
    fingerprint: row?.fingerprint ?? "",
  };
}
