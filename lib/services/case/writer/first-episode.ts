import { Prisma } from "@/lib/db/generated/prisma/client";
import type { ProducerActor } from "../../access/actor";
import { actorColumns } from "../../access/actor";

/**
 * The audit rows of a case's first registration, for the statement that inserts it (`source`: the
 * inserted case with id, stage, state, provider_job_id and version): the case was parked, then its
 * hold reserved, in that order.
 */
export function firstEpisodeAudit(input: {
  actor: ProducerActor;
  source: Prisma.Sql;
  evidence: string;
  /** When it happened (an SQL timestamptz expression). */
  at: Prisma.Sql;
  hold: { holdId: string; amountMicros: bigint; currency: string };
}): Prisma.Sql {
  const { actorKind, actorId, actorLabel } = actorColumns(input.actor);
  const { holdId, amountMicros, currency } = input.hold;
  return Prisma.sql`INSERT INTO audit_events (case_id, episode, actor_kind, actor_id, actor_label, kind, after, evidence, created_at)
      SELECT cs.id, 1, ${actorKind}::"ActorKind", ${actorId}, ${actorLabel}, e.kind, e.after, e.evidence, ${input.at}
      FROM ${input.source} cs CROSS JOIN LATERAL (VALUES
        (1, 'parked', jsonb_build_object('stage', cs.stage, 'state', cs.state, 'providerJobId', cs.provider_job_id,
                                         'version', cs.version), ${input.evidence}::jsonb),
        (2, 'hold_reserved', jsonb_build_object('holdId', ${holdId}::text, 'amountMicros', ${amountMicros}::bigint,
                                                'currency', ${currency}::text), NULL::jsonb)
      ) AS e(ord, kind, after, evidence)
      ORDER BY e.ord`;
}
