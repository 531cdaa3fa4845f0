import { insertCaselessAuditRow } from "@/lib/audit/writer";
import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { sqlRows } from "@/lib/db/sql-rows";
import { actorColumns } from "@/lib/domain/principal";
import type { PermitFacts } from "@/lib/domain/send-permits";
import { storedText } from "@/lib/domain/stored-text";
import type { Env } from "@/lib/env";
import type { PermitRequestInput } from "@/lib/validation/permits";
import type { ProducerActor } from "../access/actor";
import { reserveCtes } from "../hold/writer/reserve";
import {
  GATE_LIMITS_PASSED,
  GATE_NO_REFUSAL,
  type GateRefusal,
  gateLimitsCtes,
  gatePausedCte,
  gatePausedOutcome,
  gateRefusal,
  gateTake,
  raisedRefusal,
} from "./send-gate";

export type FirstPermit = "issued" | "exists" | "hold_taken" | "raced";

/**
 * The hot path of a send, in one statement and one round trip: when the operation is new and its
 * holdId free, everything a first permit writes (operation, attempt, hold, reserve entry, permit,
 * its audit row). Anything else writes nothing and says why: the operation exists (the caller
 * decides on it under a lock), the holdId belongs to another send, or a concurrent first request is
 * committing (`ON CONFLICT DO NOTHING` on the operation: the caller asks again). A new send also
 * passes the send gate in the same statement (send-gate.ts, decisions 037 and 064): people's pauses
 * and the provider's breaker are read before anything is written; the producer's spend limits are
 * locked, checked and taken after the audit row, the statement's last write, so a producer's permits
 * queue on its limit's row for the commit alone (decision 082). A refusal writes nothing and is
 * thrown: a pause's before the writes, a limit's by failing the statement, which undoes them.
 */
export async function issueFirstPermit(
  db: Db,
  producer: ProducerActor,
  operationId: string,
  input: PermitRequestInput,
  facts: PermitFacts,
  settings: Pick<Env, "STORE_PROMPTS">,
): Promise<FirstPermit> {
  const { actorLabel } = actorColumns(producer);
  const request = input.request
    ? JSON.stringify(storedText(input.request, { storePrompts: settings.STORE_PROMPTS === "1" }))
    : null;
  const after = {
    operationId,
    attemptId: facts.attemptId,
    token: 1,
    sendDeadline: input.sendDeadline,
    holdId: facts.holdId,
    amountMicros: Number(facts.amountMicros),
    currency: facts.currency,
  };
  const ask = { producer: producer.name, ...facts };
  const isNew = Prisma.sql`NOT EXISTS (SELECT 1 FROM existing) AND NOT EXISTS (SELECT 1 FROM taken)`;
  const rows = await sqlRows<GateRefusal & { outcome: FirstPermit | "paused" }>(
    db,
    Prisma.sql`
    WITH existing AS (
      SELECT 1 FROM operations WHERE producer = ${producer.name} AND operation_id = ${operationId}
    ), taken AS (
      SELECT 1 FROM holds WHERE producer = ${producer.name} AND hold_id = ${facts.holdId}
    ), ${gatePausedCte(ask)}, op AS (
      INSERT INTO operations (producer, operation_id, provider, model, request_fingerprint, request_summary)
      SELECT ${producer.name}, ${operationId}, ${facts.provider}, ${facts.model}, ${facts.fingerprint}, ${request}::jsonb
      WHERE ${isNew} AND NOT EXISTS (SELECT 1 FROM gate_paused)
      ON CONFLICT (producer, operation_id) DO NOTHING
      RETURNING id
    ), att AS (
      INSERT INTO attempts (operation_ref, attempt_id, kind, provider)
      SELECT id, ${facts.attemptId}, 'original', ${facts.provider} FROM op
      RETURNING id, operation_ref
    ), ${reserveCtes({
      source: Prisma.sql`att`,
      attemptRef: Prisma.sql`s.id`,
      holdId: facts.holdId,
      producer: producer.name,
      amountMicros: facts.amountMicros,
      currency: facts.currency,
      actorLabel,
    })}, permit AS (
      INSERT INTO send_permits (producer, operation_ref, attempt_ref, hold_ref, token, send_deadline)
      SELECT ${producer.name}, att.operation_ref, att.id, hold.id, 1, ${new Date(input.sendDeadline)}
      FROM att JOIN hold ON hold.attempt_ref = att.id
      RETURNING id, operation_ref
    ), audit AS (
      ${insertCaselessAuditRow({ source: Prisma.sql`permit`, actor: producer, kind: "permit_issued", after })}
      RETURNING operation_ref
    ), ${gateLimitsCtes(ask, Prisma.sql`audit`)}, ${gateTake(ask, Prisma.sql`TRUE`)}
    SELECT 'issued' AS outcome, ${GATE_NO_REFUSAL} FROM permit WHERE ${GATE_LIMITS_PASSED}
    UNION ALL SELECT 'exists', ${GATE_NO_REFUSAL} FROM existing
    UNION ALL SELECT 'hold_taken', ${GATE_NO_REFUSAL} FROM taken WHERE NOT EXISTS (SELECT 1 FROM existing)
    ${gatePausedOutcome(isNew)}`,
  ).catch((error: unknown) => {
    const refused = raisedRefusal(error);
    throw refused ? gateRefusal(ask, refused) : error;
  });
  const row = rows[0];
  if (row?.outcome === "paused") throw gateRefusal(ask, row);
  return row?.outcome ?? "raced";
}
