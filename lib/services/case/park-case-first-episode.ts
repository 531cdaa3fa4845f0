import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { sqlRows } from "@/lib/db/sql-rows";
import { actorColumns } from "@/lib/domain/principal";
import type { RegistrationFacts } from "@/lib/domain/registration";
import type { CaseState, Stage } from "@/lib/domain/stages";
import { storedText } from "@/lib/domain/stored-text";
import type { Env } from "@/lib/env";
import type { ParkCaseInput } from "@/lib/validation/park-case";
import type { ProducerActor } from "../access/actor";
import { reserveCtes } from "../hold/writer/reserve";
import { type ParkEvidence, parkEvidence } from "../job-claim/claim-job";
import { firstCaseCte, firstEpisodeAudit } from "./writer/first-episode";

export type FirstEpisode =
  | { kind: "created"; caseId: string; stage: Stage; state: CaseState }
  | { kind: "existing"; caseId: string; stage: Stage; state: CaseState; registered: RegistrationFacts }
  | { kind: "hold_taken" }
  /** The named provider job is already recorded for another operation (rule 11). */
  | { kind: "job_in_use" }
  /** Nothing found and nothing written: a concurrent registration of the operation is committing. */
  | { kind: "raced" };

type Row = {
  outcome: "created" | "existing" | "hold_taken" | "job_in_use";
  id: string | null;
  stage: Stage | null;
  state: CaseState | null;
  attempt_id: string | null;
  registered_stage: Stage | null;
  registered_job_id: string | null;
  registered_fingerprint: string | null;
  provider: string | null;
  model: string | null;
  hold_id: string | null;
  amount_micros: bigint | null;
  currency: string | null;
};

/**
 * The hot path of an ingest burst, in one statement and one round trip: either the operation's
 * case as registered (for the caller to judge a replay), or, when the operation is new and its
 * holdId free, everything a first registration writes: operation, attempt, parked case, hold,
 * reserve entry, and the `parked` and `hold_reserved` audit events. The statement is atomic on its
 * own; `ON CONFLICT DO NOTHING` turns a concurrent twin into `raced` instead of a second case. A job
 * another operation already owns writes nothing; a concurrent first claim on the job loses on the
 * attempts' unique key (a unique violation the caller retries, then answered as `job_in_use`).
 */
export async function parkFirstEpisode(
  db: Db,
  actor: ProducerActor,
  input: ParkCaseInput,
  at: Date | null = null,
  settings?: Pick<Env, "STORE_PROMPTS">,
): Promise<FirstEpisode> {
  const { actorLabel } = actorColumns(actor);
  // Every row the registration writes carries the same moment, so the figures the triggers bucket
  // by hour (cases opened, holds reserved, money booked) agree with each other from the start.
  const moment = Prisma.sql`COALESCE(${at}::timestamptz, CURRENT_TIMESTAMP)`;
  const storePrompts = settings?.STORE_PROMPTS === "1";
  const evidence = JSON.stringify(storedText(input.evidence, { storePrompts }));
  const request = input.request ? JSON.stringify(storedText(input.request, { storePrompts })) : null;
  const jobId = input.providerJobId ?? null;
  const amount = BigInt(input.hold.amountMicros);
  const rows = await sqlRows<Row>(
    db,
    Prisma.sql`
    WITH existing AS (
      SELECT c.id, c.stage, c.state, c.attempt_id, c.registered_stage, c.registered_job_id, c.registered_fingerprint,
             c.provider, c.model, h.hold_id, h.amount_micros, h.currency
      FROM operations o JOIN cases c ON c.operation_ref = o.id LEFT JOIN holds h ON h.attempt_ref = c.attempt_ref
      WHERE o.producer = ${actor.name} AND o.operation_id = ${input.operationId}
    ), taken AS (
      SELECT 1 FROM holds WHERE producer = ${actor.name} AND hold_id = ${input.hold.holdId}
    ), owned AS (
      SELECT 1 FROM attempts WHERE provider = ${input.provider} AND provider_job_id = ${jobId}
    ), op AS (
      INSERT INTO operations (producer, operation_id, provider, model, request_fingerprint, request_summary, created_at)
      SELECT ${actor.name}, ${input.operationId}, ${input.provider}, ${input.model}, ${input.requestFingerprint},
             ${request}::jsonb, ${moment}
      WHERE NOT EXISTS (SELECT 1 FROM existing) AND NOT EXISTS (SELECT 1 FROM taken)
        AND NOT EXISTS (SELECT 1 FROM owned)
      ON CONFLICT (producer, operation_id) DO NOTHING
      RETURNING id
    ), att AS (
      INSERT INTO attempts (operation_ref, attempt_id, kind, provider_job_id, submitted_at, created_at)
      SELECT id, ${input.attemptId}, 'original', ${jobId}, ${input.submittedAt ?? null}::timestamptz, ${moment} FROM op
      RETURNING id, operation_ref
    ), ${firstCaseCte({ source: Prisma.sql`att`, producer: actor.name, input, evidence, heldMicros: amount, at: moment })}, ${reserveCtes(
      {
        source: Prisma.sql`cs`,
        attemptRef: Prisma.sql`s.attempt_ref`,
        caseId: Prisma.sql`s.id`,
        holdId: input.hold.holdId,
        producer: actor.name,
        amountMicros: amount,
        currency: input.hold.currency,
        actorLabel,
        at: moment,
      },
    )}, audit AS (
      -- In the order the events happened: the case was parked, then its hold reserved.
      ${firstEpisodeAudit({ actor, source: Prisma.sql`cs`, evidence, at: moment, hold: { ...input.hold, amountMicros: amount } })}
    )
    SELECT 'created' AS outcome, id, stage, state, NULL AS attempt_id, NULL::"Stage" AS registered_stage,
           NULL AS registered_job_id, NULL AS registered_fingerprint, NULL AS provider, NULL AS model,
           NULL AS hold_id, NULL::bigint AS amount_micros, NULL AS currency
    FROM cs
    UNION ALL
    SELECT 'existing', id, stage, state, attempt_id, registered_stage, registered_job_id, registered_fingerprint,
           provider, model, hold_id, amount_micros, currency
    FROM existing
    UNION ALL
    SELECT 'job_in_use', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL
    FROM owned WHERE NOT EXISTS (SELECT 1 FROM existing)
    UNION ALL
    SELECT 'hold_taken', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL
    FROM taken WHERE NOT EXISTS (SELECT 1 FROM existing) AND NOT EXISTS (SELECT 1 FROM owned)`,
  );
  const row = rows[0];
  if (!row) return { kind: "raced" };
  if (row.outcome === "hold_taken") return { kind: "hold_taken" };
  if (row.outcome === "job_in_use") return { kind: "job_in_use" };
  const found = { caseId: row.id ?? "", stage: row.stage as Stage, state: row.state as CaseState };
  if (row.outcome === "created") return { kind: "created", ...found };
  return { kind: "existing", ...found, registered: registeredFacts(row, input.operationId) };
}

type Registered = Extract<FirstEpisode, { kind: "existing" }> & {
  /**
   * The named provider job is recorded for this very attempt of this operation: what lets a claim on
   * the job through unexamined (`refuseContradictedPark`).
   */
  jobIsItsOwn: boolean;
};

/** What a park reads before it writes anything, in one statement (`readRegistration`). */
export type Registration = {
  /** The operation's case as registered; null when the operation has no case (or does not exist). */
  found: Registered | null;
  /**
   * At delivery only: this very attempt was sent under a permit that has not parked yet (live,
   * accepted or completed), which parks through the permit (decision 078) instead of here.
   */
  permitAwaitsPark: boolean;
  /** The provider's evidence about a named job not recorded for this attempt; null otherwise. */
  evidence: ParkEvidence | null;
};

type ReadRow = Omit<Row, "outcome"> & {
  job_is_its_own: boolean;
  permit_awaits_park: boolean;
  bound_elsewhere: boolean | null;
  evidence_fingerprint: string | null;
  evidence_model: string | null;
};

/**
 * Everything a park decides on before writing, by one read: no transaction, no lock beyond a
 * reader's, no trigger. An identical re-registration is most of a replayed burst and is answered
 * from this alone; the write statement above would cost it a writer's locks and every statement
 * trigger of six tables even when it writes nothing (docs/performance.md §4). The permit and the
 * provider's evidence are looked up only where they can matter (decision 083): the permit for a park
 * at delivery of an existing operation, the evidence for a named job this attempt does not record.
 */
export async function readRegistration(db: Db, actor: ProducerActor, input: ParkCaseInput): Promise<Registration> {
  const jobId = input.providerJobId ?? null;
  const evidence = jobId
    ? parkEvidence({
        producer: actor.name,
        operationId: input.operationId,
        attemptId: input.attemptId,
        provider: input.provider,
        providerJobId: jobId,
        fingerprint: input.requestFingerprint,
        model: input.model,
      })
    : Prisma.sql`SELECT NULL::boolean AS bound_elsewhere, NULL::text AS fingerprint, NULL::text AS model`;
  const rows = await sqlRows<ReadRow>(
    db,
    Prisma.sql`
    SELECT c.id, c.stage, c.state, c.attempt_id, c.registered_stage, c.registered_job_id, c.registered_fingerprint,
           c.provider, c.model, h.hold_id, h.amount_micros, h.currency, mine.job_is_its_own,
           ${input.stage === "delivery"} AND EXISTS (
             SELECT 1 FROM attempts a JOIN send_permits p ON p.attempt_ref = a.id
             WHERE a.operation_ref = o.id AND a.attempt_id = ${input.attemptId}
               AND p.case_ref IS NULL AND p.status IN ('live', 'accepted', 'completed')) AS permit_awaits_park,
           e.bound_elsewhere, e.fingerprint AS evidence_fingerprint, e.model AS evidence_model
    FROM (SELECT) AS one
    LEFT JOIN operations o ON o.producer = ${actor.name} AND o.operation_id = ${input.operationId}
    LEFT JOIN cases c ON c.operation_ref = o.id
    LEFT JOIN holds h ON h.attempt_ref = c.attempt_ref
    CROSS JOIN LATERAL (
      SELECT EXISTS (SELECT 1 FROM attempts a
                     WHERE a.provider = ${input.provider} AND a.provider_job_id = ${jobId}
                       AND a.operation_ref = o.id AND a.attempt_id = ${input.attemptId}) AS job_is_its_own
      OFFSET 0
    ) AS mine
    -- The evidence's lookups run only for a named job that is not this attempt's own (OFFSET 0 keeps
    -- the planner from merging the subquery into the join, where its lookups would run first).
    LEFT JOIN LATERAL (${evidence} WHERE NOT mine.job_is_its_own OFFSET 0) AS e ON true`,
  );
  const row = rows[0];
  if (!row) throw new Error("the registration read returns one row");
  const found: Registered | null = row.id
    ? {
        kind: "existing",
        caseId: row.id,
        stage: row.stage as Stage,
        state: row.state as CaseState,
        registered: registeredFacts(row, input.operationId),
        jobIsItsOwn: row.job_is_its_own,
      }
    : null;
  return {
    found,
    permitAwaitsPark: row.permit_awaits_park,
    evidence:
      jobId && !row.job_is_its_own
        ? {
            bound_elsewhere: row.bound_elsewhere ?? false,
            fingerprint: row.evidence_fingerprint,
            model: row.evidence_model,
          }
        : null,
  };
}

function registeredFacts(row: Omit<Row, "outcome">, operationId: string): RegistrationFacts {
  return {
    operationId,
    attemptId: row.attempt_id ?? "",
    stage: row.registered_stage as Stage,
    providerJobId: row.registered_job_id,
    fingerprint: row.registered_fingerprint ?? "",
    provider: row.provider ?? "",
    model: row.model ?? "",
    holdId: row.hold_id ?? "",
    amountMicros: row.amount_micros === null ? 0n : BigInt(row.amount_micros),
    currency: row.currency ?? "",
  };
}
