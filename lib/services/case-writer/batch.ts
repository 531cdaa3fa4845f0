import { Prisma } from "@/lib/db/generated/prisma/client";
import type { Principal } from "@/lib/domain/principal";
import type { StateMove } from "@/lib/domain/state-moves";
import { actorColumns } from "../actor";
import { timestampAssignments, timestampsOf } from "./change";

/**
 * A state-only decision (`stateMove`) applied to every case of `source` (rows with `case_id`) in
 * one statement, as two CTEs: `moved` compares-and-sets each case on the move's state and stages
 * (the row lock the UPDATE takes makes that check current) and `audited` writes one audit row per
 * moved case, with `evidence` an expression over `s` (the source row). `moved` returns the case's
 * id, episode, stage, version and job for the caller's own use.
 */
export function stateMoveCtes(input: {
  move: StateMove;
  actor: Principal;
  source: Prisma.Sql;
  evidence: Prisma.Sql;
}): Prisma.Sql {
  const { move } = input;
  const { actorKind, actorId, actorLabel } = actorColumns(input.actor);
  // A state-only move keeps the stage and the job, so only the state decides the timestamps.
  const times = timestampsOf(
    { stage: "polling", state: move.from, providerJobId: null },
    {
      stage: "polling",
      state: move.to,
      providerJobId: null,
    },
  );
  const snapshot = (state: Prisma.Sql, version: Prisma.Sql) =>
    Prisma.sql`jsonb_build_object('stage', m.stage, 'state', ${state}, 'providerJobId', m.provider_job_id, 'version', ${version})`;
  return Prisma.sql`moved AS (
      UPDATE cases c SET state = ${move.to}::"CaseState", version = c.version + 1, updated_at = now(),
          ${timestampAssignments(Prisma.sql`${times.resolves}`, Prisma.sql`${times.outputs}::text`)}
      FROM ${input.source} s
      WHERE c.id = s.case_id AND c.state = ${move.from}::"CaseState"
        AND c.stage::text = ANY(string_to_array(${move.stages.join(",")}::text, ','))
      RETURNING c.id, c.episode, c.stage, c.version, c.provider_job_id
    ), audited AS (
      INSERT INTO audit_events (case_id, episode, actor_kind, actor_id, actor_label, kind, before, after, evidence)
      SELECT m.id, m.episode, ${actorKind}::"ActorKind", ${actorId}, ${actorLabel}, ${move.auditKind},
             ${snapshot(Prisma.sql`${move.from}::text`, Prisma.sql`m.version - 1`)},
             ${snapshot(Prisma.sql`${move.to}::text`, Prisma.sql`m.version`)},
             ${input.evidence}
      FROM moved m JOIN ${input.source} s ON s.case_id = m.id
    )`;
}
