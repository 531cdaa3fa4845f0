import { insertAuditSelect } from "@/lib/audit/writer";
import { Prisma } from "@/lib/db/generated/prisma/client";
import type { AuditKind } from "@/lib/domain/case-commands";
import { actorColumns, type Principal } from "@/lib/domain/principal";
import type { StateMove } from "@/lib/domain/state-moves";
import {
  auditSnapshots,
  type CaseSeen,
  type Decided,
  snapshotOf,
  timestampAssignments,
  timestampsOf,
  writableScopeSql,
} from "./change";

/**
 * A state-only decision (`stateMove`) applied to every case of `source` (rows with `case_id`) in
 * one statement, as two CTEs: `moved` compares-and-sets each case on the move's state and stages
 * (the row lock the UPDATE takes makes that check current) and `audited` writes one audit row per
 * moved case, with `evidence` an expression over `s` (the source row). `moved` returns the case's
 * id, episode, stage, version, job, provider, model and check count for the caller's own use (a claim
 * hands them to execution, which so never reads the case again).
 */
export function stateMoveCtes(input: {
  move: StateMove;
  actor: Principal;
  source: Prisma.Sql;
  evidence: Prisma.Sql;
}): Prisma.Sql {
  const { move } = input;
  const { actorKind, actorId, actorLabel } = actorColumns(input.actor);
  // A state-only move keeps the stage, the job and the outputs' fate: only the states decide the timestamps.
  const as = (state: StateMove["from"]) => ({ stage: move.stages[0] ?? "polling", state, providerJobId: null });
  const times = timestampsOf(as(move.from), as(move.to));
  const snapshot = (state: Prisma.Sql, version: Prisma.Sql) =>
    Prisma.sql`jsonb_build_object('stage', m.stage, 'state', ${state}, 'providerJobId', m.provider_job_id, 'version', ${version})`;
  return Prisma.sql`moved AS (
      UPDATE cases c SET state = ${move.to}::"CaseState", version = c.version + 1, updated_at = now(),
          ${timestampAssignments(Prisma.sql`${times.resolves}`, Prisma.sql`${times.outputs}::text`)}
      FROM ${input.source} s
      WHERE c.id = s.case_id AND c.state = ${move.from}::"CaseState"
        AND c.stage::text = ANY(string_to_array(${move.stages.join(",")}::text, ','))
      RETURNING c.id, c.episode, c.stage, c.version, c.provider_job_id, c.provider, c.model, c.poll_attempts
    ), audited AS (
      ${insertAuditSelect(Prisma.sql`SELECT m.id, m.episode, ${actorKind}::"ActorKind", ${actorId}, ${actorLabel}, ${move.auditKind},
             ${snapshot(Prisma.sql`${move.from}::text`, Prisma.sql`m.version - 1`)},
             ${snapshot(Prisma.sql`${move.to}::text`, Prisma.sql`m.version`)},
             ${input.evidence}
      FROM moved m JOIN ${input.source} s ON s.case_id = m.id`)}
    )`;
}

/** Changes decided one case at a time (each on that case as read), to be written by one statement. */
export type DecidedChange = { seen: CaseSeen; decision: Decided; evidence: Prisma.InputJsonValue };

/**
 * The decided changes as a row source for one statement: each row carries the compare-and-set
 * (`id`, `from_state`, `version`), what the decision writes, and its audit row. Select from it
 * into the relation that `decidedChangesCtes` takes.
 */
export function decidedChangesInput(changes: DecidedChange[]): Prisma.Sql {
  const rows = changes.map(({ seen, decision, evidence }) => {
    const times = timestampsOf(snapshotOf(seen), decision.next);
    return {
      id: seen.caseId,
      from_state: seen.state,
      version: seen.version,
      episode: seen.episode,
      stage: decision.next.stage,
      state: decision.next.state,
      provider_job_id: decision.next.providerJobId,
      resolves: times.resolves,
      outputs: times.outputs,
      audit_kind: decision.auditKind,
      ...auditSnapshots(seen, decision),
      evidence,
    };
  });
  return Prisma.sql`SELECT * FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
    AS r(id uuid, from_state "CaseState", version int, episode int, stage "Stage", state "CaseState",
         provider_job_id text, resolves boolean, outputs text, audit_kind text, before jsonb, after jsonb, evidence jsonb)`;
}

/**
 * `moved` and `audited` for decided changes: `source` is a relation with the columns of
 * `decidedChangesInput` (aliased `r`), narrowed by `where`. Each case is compared-and-set on the
 * state and version its decision was made on, and within the producers the actor may change now
 * (decision 054); `moved` returns the ids written.
 */
export function decidedChangesCtes(input: { actor: Principal; source: Prisma.Sql; where?: Prisma.Sql }): Prisma.Sql {
  const { actorKind, actorId, actorLabel } = actorColumns(input.actor);
  return Prisma.sql`moved AS (
      UPDATE cases c
      SET stage = r.stage, state = r.state, provider_job_id = r.provider_job_id, version = c.version + 1,
          updated_at = now(), ${timestampAssignments(Prisma.sql`r.resolves`, Prisma.sql`r.outputs`)}
      FROM ${input.source} r
      WHERE c.id = r.id AND c.state = r.from_state AND c.version = r.version AND ${writableScopeSql(input.actor)}
        ${input.where ? Prisma.sql`AND ${input.where}` : Prisma.empty}
      RETURNING c.id
    ), audited AS (
      ${insertAuditSelect(Prisma.sql`SELECT r.id, r.episode, ${actorKind}::"ActorKind", ${actorId}, ${actorLabel}, r.audit_kind, r.before, r.after, r.evidence
      FROM ${input.source} r JOIN moved m ON m.id = r.id`)}
    )`;
}

/**
 * Rule 6's escalation flag for every case of `source` (rows with `id` and `reason`), as two CTEs:
 * `escalated` raises the flag once per episode (re-checked on the locked row) and never touches
 * state, version or money, so no compare-and-set on the version; `audited` writes one row each.
 */
export function escalationCtes(input: { actor: Principal; source: Prisma.Sql; now: Date }): Prisma.Sql {
  const { actorKind, actorId, actorLabel } = actorColumns(input.actor);
  const kind: AuditKind = "deadline_escalated";
  const snapshot = (escalated: boolean) =>
    Prisma.sql`jsonb_build_object('stage', e.stage, 'state', e.state, 'providerJobId', e.provider_job_id,
                                  'version', e.version, 'escalated', ${escalated}::boolean)`;
  return Prisma.sql`escalated AS (
      UPDATE cases c SET escalated_at = ${input.now}, escalation_reason = s.reason
      FROM ${input.source} s WHERE c.id = s.id AND c.escalated_at IS NULL AND c.state <> 'resolved'
      RETURNING c.id, c.episode, c.stage, c.state, c.provider_job_id, c.version, c.retry_deadline, s.reason
    ), audited AS (
      ${insertAuditSelect(Prisma.sql`SELECT e.id, e.episode, ${actorKind}::"ActorKind", ${actorId}, ${actorLabel}, ${kind},
             ${snapshot(false)}, ${snapshot(true)}, jsonb_build_object('reason', e.reason, 'deadline', e.retry_deadline)
      FROM escalated e`)}
    )`;
}
