import type { PrismaClient } from "@/lib/db/client";

export type ApprovedCasesSeed = {
  count: number;
  /** Prefix of the operation IDs; distinct per seeding into the same database. */
  tag: string;
  /** The user who owns the approving decisions. */
  reviewerId: string;
  producer: string;
  /** `resume_poll` seeds polling cases, `retry_delivery` delivery cases. */
  action: "resume_poll" | "retry_delivery";
  model?: string;
  /**
   * Each case's hold with its reserve entry, as parking leaves them. Left at 0, the cases get no
   * holds: claiming and finishing never read them.
   */
  holdMicros?: number;
  /** How long ago the attempts were submitted; left out, they carry no submission time. */
  submittedSecondsAgo?: number;
  /** The case's last evidence summary and the approval's evidence. */
  evidence?: { summary: string; approval: string };
};

export type SeededAction = { actionId: string; providerJobId: string };

const STAGE_OF_ACTION = { resume_poll: "polling", retry_delivery: "delivery" } as const;

/**
 * The statement that creates `count` approved cases at once, each with its operation, attempt,
 * approving decision and one ready action: what parkCase + approveCase leave behind, minus audit
 * rows. One set-based statement whatever the count, so it seeds tens of thousands of rows quickly;
 * it returns each action's ID and provider job ID. Run it on whatever handle the caller holds.
 */
export function approvedCasesStatement(input: ApprovedCasesSeed): { text: string; values: unknown[] } {
  const evidence = input.evidence ?? { summary: "seeded", approval: "seeded approval" };
  const text = `
    WITH ops AS (
      INSERT INTO operations (producer, operation_id, provider, model, request_fingerprint)
      SELECT $4, $1 || '-' || n, 'replicate', $5,
             'sha256:' || encode(sha256(convert_to($1 || '-' || n, 'UTF8')), 'hex')
      FROM generate_series(1, $2::int) AS n
      RETURNING id, operation_id, request_fingerprint
    ), atts AS (
      INSERT INTO attempts (operation_ref, attempt_id, kind, provider_job_id, submitted_at)
      SELECT id, operation_id || '-a1', 'original', 'job-' || operation_id, now() - $9::int * interval '1 second'
      FROM ops
      RETURNING id, operation_ref, attempt_id, provider_job_id, submitted_at
    ), cs AS (
      INSERT INTO cases (operation_ref, attempt_ref, producer, operation_id, attempt_id, provider, model, stage,
                         state, version, provider_job_id, registered_stage, registered_job_id,
                         registered_fingerprint, held_micros, currency, last_evidence, submitted_at)
      SELECT ops.id, atts.id, $4, ops.operation_id, atts.attempt_id, 'replicate', $5, $7::"Stage",
             'ready', 2, atts.provider_job_id, $7::"Stage", atts.provider_job_id,
             ops.request_fingerprint, $8::bigint, 'USD', jsonb_build_object('summary', $10::text), atts.submitted_at
      FROM ops JOIN atts ON atts.operation_ref = ops.id
      RETURNING id, attempt_ref, operation_id, provider_job_id
    ), hs AS (
      INSERT INTO holds (hold_id, producer, case_id, attempt_ref, amount_micros, currency)
      SELECT 'hold-' || operation_id, $4, id, attempt_ref, $8::bigint, 'USD' FROM cs WHERE $8::bigint > 0
      RETURNING id
    ), reserved AS (
      INSERT INTO ledger_entries (hold_ref, kind, amount_micros, actor_label)
      SELECT id, 'reserve', $8::bigint, 'api key ' || $4 FROM hs
    ), ds AS (
      INSERT INTO decisions (case_id, episode, kind, action_kind, reviewer_id, evidence)
      SELECT id, 1, 'approve', $6::"RecoveryActionKind", $3::uuid, $11 FROM cs
      RETURNING id, case_id
    ), acts AS (
      INSERT INTO recovery_actions (case_id, decision_id, kind, ready_at)
      SELECT case_id, id, $6::"RecoveryActionKind", now() - interval '1 second' FROM ds
      RETURNING id, case_id
    )
    SELECT acts.id::text AS "actionId", cs.provider_job_id AS "providerJobId"
    FROM acts JOIN cs ON cs.id = acts.case_id`;
  const values = [
    input.tag,
    input.count,
    input.reviewerId,
    input.producer,
    input.model ?? "omni-flash-720p",
    input.action,
    STAGE_OF_ACTION[input.action],
    input.holdMicros ?? 0,
    input.submittedSecondsAgo ?? null,
    evidence.summary,
    evidence.approval,
  ];
  return { text, values };
}

/** `count` approved polling cases without holds, for claiming; returns the action IDs. */
export async function seedReadyActions(
  db: PrismaClient,
  input: { count: number; reviewerId: string; tag: string },
): Promise<string[]> {
  const { text, values } = approvedCasesStatement({ ...input, producer: "bulk-seed", action: "resume_poll" });
  const rows = await db.$queryRawUnsafe<SeededAction[]>(text, ...values);
  return rows.map((row) => row.actionId);
}
