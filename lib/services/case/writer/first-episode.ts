import { insertAuditSelect } from "@/lib/audit/writer";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { actorColumns, type Principal } from "@/lib/domain/principal";
import type { ParkCaseInput } from "@/lib/validation/park-case";

/**
 * The audit rows of a case's first registration, for the statement that inserts it (`source`: the
 * inserted case with id, stage, state, provider_job_id and version): the case was parked, then its
 * hold reserved, in that order.
 */
export function firstEpisodeAudit(input: {
  actor: Extract<Principal, { kind: "api_key" }>;
  source: Prisma.Sql;
  evidence: string;
  /** When it happened (an SQL timestamptz expression). */
  at: Prisma.Sql;
  hold: { holdId: string; amountMicros: bigint; currency: string };
}): Prisma.Sql {
  const { actorKind, actorId, actorLabel } = actorColumns(input.actor);
  const { holdId, amountMicros, currency } = input.hold;
  return insertAuditSelect(
    Prisma.sql`SELECT cs.id, 1, ${actorKind}::"ActorKind", ${actorId}, ${actorLabel}, e.kind, NULL::jsonb, e.after, e.evidence, ${input.at}
      FROM ${input.source} cs CROSS JOIN LATERAL (VALUES
        (1, 'parked', jsonb_build_object('stage', cs.stage, 'state', cs.state, 'providerJobId', cs.provider_job_id,
                                         'version', cs.version), ${input.evidence}::jsonb),
        (2, 'hold_reserved', jsonb_build_object('holdId', ${holdId}::text, 'amountMicros', ${amountMicros}::bigint,
                                                'currency', ${currency}::text), NULL::jsonb)
      ) AS e(ord, kind, after, evidence)
      ORDER BY e.ord`,
    { at: true },
  );
}

/**
 * A registration's case, parked at its first episode, as the CTE `cs` (returning id, attempt_ref,
 * stage, state, provider_job_id and version) for each row of `source` (the attempt just inserted:
 * its `id` and `operation_ref`). `evidence` is the sanitised JSON text; `at` stamps opening and update.
 */
export function firstCaseCte(input: {
  source: Prisma.Sql;
  producer: string;
  input: ParkCaseInput;
  evidence: string;
  heldMicros: bigint;
  at: Prisma.Sql;
}): Prisma.Sql {
  const park = input.input;
  const jobId = park.providerJobId ?? null;
  return Prisma.sql`cs AS (
      INSERT INTO cases (operation_ref, attempt_ref, producer, operation_id, attempt_id, provider, model, stage, state,
                         provider_job_id, registered_stage, registered_job_id, registered_fingerprint, held_micros,
                         currency, last_evidence, poll_attempts, delivery_attempts, submitted_at, retry_deadline,
                         opened_at, updated_at)
      SELECT operation_ref, id, ${input.producer}, ${park.operationId}, ${park.attemptId}, ${park.provider},
             ${park.model}, ${park.stage}::"Stage", 'parked', ${jobId}, ${park.stage}::"Stage", ${jobId},
             ${park.requestFingerprint}, ${input.heldMicros}, ${park.hold.currency}, ${input.evidence}::jsonb,
             ${park.counters?.pollAttempts ?? 0}, ${park.counters?.deliveryAttempts ?? 0},
             ${park.submittedAt ?? null}::timestamptz, ${park.retryDeadline ?? null}::timestamptz, ${input.at}, ${input.at}
      FROM ${input.source}
      RETURNING id, attempt_ref, stage, state, provider_job_id, version
    )`;
}
