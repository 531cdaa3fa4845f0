import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { sqlRows } from "@/lib/db/sql-rows";
import type { RegistrationFacts } from "@/lib/domain/registration";
import { sanitise } from "@/lib/domain/sanitise";
import type { CaseState, Stage } from "@/lib/domain/stages";
import type { ParkCaseInput } from "@/lib/validation/park-case";
import { actorColumns, type ProducerActor } from "./actor";

export type FirstEpisode =
  | { kind: "created"; caseId: string; stage: Stage; state: CaseState }
  | { kind: "existing"; caseId: string; stage: Stage; state: CaseState; registered: RegistrationFacts }
  | { kind: "hold_taken" }
  /** Nothing found and nothing written: a concurrent registration of the operation is committing. */
  | { kind: "raced" };

type Row = {
  outcome: "created" | "existing" | "hold_taken";
  id: string | null;
  stage: Stage | null;
  state: CaseState | null;
  attempt_id: string | null;
  registered_stage: Stage | null;
  registered_job_id: string | null;
  registered_fingerprint: string | null;
};

/**
 * The hot path of an ingest burst, in one statement and one round trip: either the operation's
 * case as registered (for the caller to judge a replay), or, when the operation is new and its
 * holdId free, everything a first registration writes: operation, attempt, parked case, hold,
 * reserve entry, and the `parked` and `hold_reserved` audit events. The statement is atomic on its
 * own; `ON CONFLICT DO NOTHING` turns a concurrent twin into `raced` instead of a second case.
 */
export async function parkFirstEpisode(db: Db, actor: ProducerActor, input: ParkCaseInput): Promise<FirstEpisode> {
  const { actorId, actorLabel } = actorColumns(actor);
  const evidence = JSON.stringify(sanitise(input.evidence));
  const request = input.request ? JSON.stringify(sanitise(input.request)) : null;
  const jobId = input.providerJobId ?? null;
  const amount = BigInt(input.hold.amountMicros);
  const rows = await sqlRows<Row>(
    db,
    Prisma.sql`
    WITH existing AS (
      SELECT c.id, c.stage, c.state, c.attempt_id, c.registered_stage, c.registered_job_id, c.registered_fingerprint
      FROM operations o JOIN cases c ON c.operation_ref = o.id
      WHERE o.producer = ${actor.name} AND o.operation_id = ${input.operationId}
    ), taken AS (
      SELECT 1 FROM holds WHERE producer = ${actor.name} AND hold_id = ${input.hold.holdId}
    ), op AS (
      INSERT INTO operations (producer, operation_id, provider, model, request_fingerprint, request_summary)
      SELECT ${actor.name}, ${input.operationId}, ${input.provider}, ${input.model}, ${input.requestFingerprint},
             ${request}::jsonb
      WHERE NOT EXISTS (SELECT 1 FROM existing) AND NOT EXISTS (SELECT 1 FROM taken)
      ON CONFLICT (producer, operation_id) DO NOTHING
      RETURNING id
    ), att AS (
      INSERT INTO attempts (operation_ref, attempt_id, kind, provider_job_id, submitted_at)
      SELECT id, ${input.attemptId}, 'original', ${jobId}, ${input.submittedAt ?? null}::timestamptz FROM op
      RETURNING id, operation_ref
    ), cs AS (
      INSERT INTO cases (operation_ref, attempt_ref, producer, operation_id, attempt_id, provider, model, stage, state,
                         provider_job_id, registered_stage, registered_job_id, registered_fingerprint, held_micros,
                         currency, last_evidence, poll_attempts, delivery_attempts, submitted_at, retry_deadline)
      SELECT operation_ref, id, ${actor.name}, ${input.operationId}, ${input.attemptId}, ${input.provider},
             ${input.model}, ${input.stage}::"Stage", 'parked', ${jobId}, ${input.stage}::"Stage", ${jobId},
             ${input.requestFingerprint}, ${amount}, ${input.hold.currency}, ${evidence}::jsonb,
             ${input.counters?.pollAttempts ?? 0}, ${input.counters?.deliveryAttempts ?? 0},
             ${input.submittedAt ?? null}::timestamptz, ${input.retryDeadline ?? null}::timestamptz
      FROM att
      RETURNING id, attempt_ref, stage, state, provider_job_id, version
    ), hold AS (
      INSERT INTO holds (hold_id, producer, case_id, attempt_ref, amount_micros, currency)
      SELECT ${input.hold.holdId}, ${actor.name}, id, attempt_ref, ${amount}, ${input.hold.currency} FROM cs
      RETURNING id
    ), reserve AS (
      INSERT INTO ledger_entries (hold_ref, kind, amount_micros, actor_label)
      SELECT id, 'reserve', ${amount}, ${actorLabel} FROM hold
    ), audit AS (
      -- In the order the events happened: the case was parked, then its hold reserved.
      INSERT INTO audit_events (case_id, episode, actor_kind, actor_id, actor_label, kind, after, evidence)
      SELECT cs.id, 1, 'api_key', ${actorId}, ${actorLabel}, e.kind, e.after, e.evidence
      FROM cs CROSS JOIN LATERAL (VALUES
        (1, 'parked', jsonb_build_object('stage', cs.stage, 'state', cs.state, 'providerJobId', cs.provider_job_id,
                                         'version', cs.version), ${evidence}::jsonb),
        (2, 'hold_reserved', jsonb_build_object('holdId', ${input.hold.holdId}::text, 'amountMicros', ${amount}::bigint,
                                                'currency', ${input.hold.currency}::text), NULL::jsonb)
      ) AS e(ord, kind, after, evidence)
      ORDER BY e.ord
    )
    SELECT 'created' AS outcome, id, stage, state, NULL AS attempt_id, NULL::"Stage" AS registered_stage,
           NULL AS registered_job_id, NULL AS registered_fingerprint
    FROM cs
    UNION ALL
    SELECT 'existing', id, stage, state, attempt_id, registered_stage, registered_job_id, registered_fingerprint
    FROM existing
    UNION ALL
    SELECT 'hold_taken', NULL, NULL, NULL, NULL, NULL, NULL, NULL FROM taken WHERE NOT EXISTS (SELECT 1 FROM existing)`,
  );
  const row = rows[0];
  if (!row) return { kind: "raced" };
  if (row.outcome === "hold_taken") return { kind: "hold_taken" };
  const found = { caseId: row.id ?? "", stage: row.stage as Stage, state: row.state as CaseState };
  if (row.outcome === "created") return { kind: "created", ...found };
  return {
    kind: "existing",
    ...found,
    registered: {
      operationId: input.operationId,
      attemptId: row.attempt_id ?? "",
      stage: row.registered_stage as Stage,
      providerJobId: row.registered_job_id,
      fingerprint: row.registered_fingerprint ?? "",
    },
  };
}
