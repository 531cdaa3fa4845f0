import { recordAudit } from "@/lib/audit/writer";
import { signWebhookReference } from "@/lib/auth/webhook-reference";
import type { Db, Prisma } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import { isUniqueViolation } from "@/lib/db/unique-violation";
import { planReserve } from "@/lib/domain/holds";
import { actorColumns, type Principal } from "@/lib/domain/principal";
import {
  checkSendDeadline,
  decidePermitRequest,
  type OperationSeen,
  type PermitAnswer,
  type PermitFacts,
  withinWindow,
} from "@/lib/domain/send-permits";
import type { CaseState } from "@/lib/domain/stages";
import { storedText } from "@/lib/domain/stored-text";
import type { Env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import type { PermitRequestInput } from "@/lib/validation/permits";
import { type ProducerActor, requireProducer } from "../access/actor";
import { reserve } from "../hold/writer/reserve";
import { issueFirstPermit } from "./issue-first-permit";
import { passSendGate } from "./send-gate";

export type PermitResult =
  | {
      status: "permitted";
      created: boolean;
      permit: { operationId: string; attemptId: string; token: number; sendDeadline: string; holdId: string };
      /** Give the provider this URL for its webhook: its signed `ref` lets a webhook attach the job (DESIGN 8). */
      webhook: ProviderWebhookUrls | null;
    }
  | { status: "in_flight"; operationId: string; providerJobId: string }
  | { status: "uncertain" | "done"; operationId: string; caseId: string | null };

/**
 * DESIGN 6a: a producer asks before it sends a paid create. The first request issues a permit and
 * reserves its hold (one statement: issue-first-permit.ts); the identical request again returns the
 * same permit; once the permit was used the answer says where the operation stands and never
 * permits a second send. Beyond a new operation the operation row is locked for the decision, and a
 * partial unique index allows one open permit per operation, so concurrent requests end with one
 * permit whatever the interleaving.
 */
export async function requestPermit(
  db: Db,
  actor: Principal,
  operationId: string,
  input: PermitRequestInput,
  settings: PermitSettings,
): Promise<PermitResult> {
  const producer = requireProducer(actor);
  const now = new Date();
  const window = withinWindow(new Date(input.sendDeadline), now);
  if (!window.ok) throw new AppError("invalid_request", window.error.message);
  // A deadline already past can issue nothing, yet the identical request repeated after its permit's
  // deadline (a producer restarting late) is answered with where that permit stands.
  const deadline = checkSendDeadline(new Date(input.sendDeadline), now);
  const refusal = deadline.ok ? null : new AppError("invalid_request", deadline.error.message);
  const plan = planReserve(input.hold.amountMicros);
  if (!plan.ok) throw new AppError("invalid_request", plan.error.message);
  const facts: PermitFacts = {
    attemptId: input.attemptId,
    fingerprint: input.requestFingerprint,
    provider: input.provider,
    model: input.model,
    holdId: input.hold.holdId,
    amountMicros: BigInt(input.hold.amountMicros),
    currency: input.hold.currency,
  };
  for (let attempt = 0; ; attempt++) {
    try {
      const first = refusal ? "exists" : await issueFirstPermit(db, producer, operationId, input, facts, settings);
      if (first === "issued")
        return permitted(producer, operationId, input, 1, new Date(input.sendDeadline), true, settings);
      if (first === "hold_taken") {
        throw new AppError("conflicting_registration", "This holdId already belongs to another send.");
      }
      return await inTransaction(db, (tx) =>
        decideAndWrite(tx, producer, operationId, input, facts, refusal, settings),
      );
    } catch (error) {
      // A concurrent first request created the operation or the permit: decide again on what it wrote.
      if (!isUniqueViolation(error) || attempt >= 3) throw translate(error);
    }
  }
}

function translate(error: unknown): unknown {
  if (!isUniqueViolation(error)) return error;
  return new AppError("conflicting_registration", "This holdId or attemptId already belongs to another send.");
}

async function decideAndWrite(
  tx: Prisma.TransactionClient,
  producer: ProducerActor,
  operationId: string,
  input: PermitRequestInput,
  facts: PermitFacts,
  /** Why no new permit may be issued on this request (its deadline has passed), if so. */
  refusal: AppError | null,
  settings: PermitSettings,
): Promise<PermitResult> {
  const seen = await operationSeen(tx, producer.name, operationId, facts.attemptId);
  const verdict = decidePermitRequest(seen?.operation ?? null, facts);
  if (!verdict.ok) throw new AppError("conflicting_registration", verdict.error.message);
  const answer: PermitAnswer = verdict.value;
  switch (answer.kind) {
    case "same":
      return permitted(
        producer,
        operationId,
        input,
        answer.token,
        seen?.sendDeadline ?? new Date(input.sendDeadline),
        false,
        settings,
      );
    case "in_flight":
      return { status: "in_flight", operationId, providerJobId: answer.providerJobId };
    case "uncertain":
    case "done":
      return { status: answer.kind, operationId, caseId: answer.caseId };
    case "issue":
      if (refusal) throw refusal;
      await issue(tx, producer, operationId, input, facts, answer.token, seen?.operationRef ?? null, settings);
      return permitted(producer, operationId, input, answer.token, new Date(input.sendDeadline), true, settings);
  }
}

export type ProviderWebhookUrls = { ref: string; urls: Record<"replicate" | "fal", string> };

/** The settings a permit is issued with, handed in by its caller (decision 044). */
export type PermitSettings = Pick<Env, "STORE_PROMPTS" | "AUTH_SECRET" | "authUrl">;

/** The webhook URLs a producer passes to its create call, each carrying the attempt's signed reference. */
export function webhookFor(
  producer: string,
  operationId: string,
  attemptId: string,
  { AUTH_SECRET, authUrl }: Pick<Env, "AUTH_SECRET" | "authUrl">,
): ProviderWebhookUrls | null {
  if (!AUTH_SECRET) return null;
  const ref = signWebhookReference(AUTH_SECRET, { producer, operationId, attemptId });
  const url = (provider: string) => `${authUrl.replace(/\/+$/, "")}/api/v1/provider-webhooks/${provider}?ref=${ref}`;
  return { ref, urls: { replicate: url("replicate"), fal: url("fal") } };
}

function permitted(
  producer: ProducerActor,
  operationId: string,
  input: PermitRequestInput,
  token: number,
  deadline: Date,
  created: boolean,
  settings: PermitSettings,
) {
  return {
    status: "permitted" as const,
    created,
    permit: {
      operationId,
      attemptId: input.attemptId,
      token,
      sendDeadline: deadline.toISOString(),
      holdId: input.hold.holdId,
    },
    webhook: webhookFor(producer.name, operationId, input.attemptId, settings),
  };
}

type SeenRow = {
  operation_ref: string;
  fingerprint: string;
  provider: string;
  model: string;
  case_id: string | null;
  case_state: CaseState | null;
  permit_case_state: CaseState | null;
  token: number | null;
  status: string | null;
  attempt_id: string | null;
  provider_job_id: string | null;
  permit_case_ref: string | null;
  send_deadline: Date | null;
  hold_id: string | null;
  amount_micros: bigint | null;
  currency: string | null;
  replaced: boolean;
};

/** The operation, locked, with its latest permit and any case parked without one. */
async function operationSeen(tx: Prisma.TransactionClient, producer: string, operationId: string, attemptId: string) {
  const rows = await tx.$queryRaw<SeenRow[]>`
    WITH op AS (
      SELECT o.id, o.request_fingerprint, o.provider, o.model FROM operations o
      WHERE o.producer = ${producer} AND o.operation_id = ${operationId}
      FOR UPDATE
    )
    SELECT op.id AS operation_ref, op.request_fingerprint AS fingerprint, op.provider, op.model,
           c.id AS case_id, c.state::text AS case_state, pc.state::text AS permit_case_state,
           p.token, p.status::text AS status, a.attempt_id, p.provider_job_id, p.case_ref AS permit_case_ref,
           p.send_deadline, h.hold_id, h.amount_micros, h.currency,
           EXISTS (SELECT 1 FROM attempts r JOIN attempts ra ON ra.id = r.replaces_attempt_id
                   WHERE r.operation_ref = op.id AND ra.attempt_id = ${attemptId}) AS replaced
    FROM op
    LEFT JOIN cases c ON c.operation_ref = op.id
    LEFT JOIN LATERAL (SELECT * FROM send_permits sp WHERE sp.operation_ref = op.id ORDER BY sp.token DESC LIMIT 1) p ON TRUE
    LEFT JOIN attempts a ON a.id = p.attempt_ref
    LEFT JOIN holds h ON h.id = p.hold_ref
    LEFT JOIN cases pc ON pc.id = p.case_ref`;
  const row = rows[0];
  if (!row) return null;
  const latest =
    row.token === null
      ? null
      : {
          status: row.status as NonNullable<OperationSeen["latest"]>["status"],
          token: row.token,
          providerJobId: row.provider_job_id,
          caseId: row.permit_case_ref,
          caseState: row.permit_case_state,
          attemptId: row.attempt_id ?? "",
          fingerprint: row.fingerprint,
          provider: row.provider,
          model: row.model,
          holdId: row.hold_id ?? "",
          amountMicros: row.amount_micros === null ? 0n : BigInt(row.amount_micros),
          currency: row.currency ?? "",
        };
  const operation: OperationSeen = {
    fingerprint: row.fingerprint,
    provider: row.provider,
    model: row.model,
    latest,
    caseWithoutPermit:
      latest === null && row.case_id && row.case_state ? { caseId: row.case_id, state: row.case_state } : null,
    replaced: row.replaced ? { caseId: row.case_id } : null,
  };
  return { operation, operationRef: row.operation_ref, sendDeadline: row.send_deadline };
}

/** Operation (when new), attempt, hold with its reserve entry, the permit, and its audit row: one transaction. */
async function issue(
  tx: Prisma.TransactionClient,
  producer: ProducerActor,
  operationId: string,
  input: PermitRequestInput,
  facts: PermitFacts,
  token: number,
  existingRef: string | null,
  settings: PermitSettings,
): Promise<void> {
  const operationRef =
    existingRef ??
    (
      await tx.operation.create({
        data: {
          producer: producer.name,
          operationId,
          provider: facts.provider,
          model: facts.model,
          requestFingerprint: facts.fingerprint,
          ...(input.request
            ? {
                requestSummary: storedText(input.request, {
                  storePrompts: settings.STORE_PROMPTS === "1",
                }) as Prisma.InputJsonValue,
              }
            : {}),
        },
        select: { id: true },
      })
    ).id;
  const attempt = await tx.attempt.create({
    data: { operationRef, attemptId: facts.attemptId, kind: "original", provider: facts.provider },
    select: { id: true },
  });
  const hold = await reserve(tx, {
    holdId: facts.holdId,
    producer: producer.name,
    caseId: null,
    attemptRef: attempt.id,
    amountMicros: facts.amountMicros,
    currency: facts.currency,
    actorLabel: actorColumns(producer).actorLabel,
  });
  await tx.sendPermit.create({
    data: {
      producer: producer.name,
      operationRef,
      attemptRef: attempt.id,
      holdRef: hold.id,
      token,
      sendDeadline: new Date(input.sendDeadline),
    },
  });
  await recordAudit(tx, {
    actor: producer,
    kind: "permit_issued",
    operationRef,
    after: {
      // IDs are per producer: the event names whose operation it is, as every permit event does.
      producer: producer.name,
      operationId,
      attemptId: facts.attemptId,
      token,
      sendDeadline: input.sendDeadline,
      holdId: facts.holdId,
      amountMicros: Number(facts.amountMicros),
      currency: facts.currency,
    },
  });
  // A new attempt spends again: the pauses and the spend limits decide, and a refusal rolls back what
  // was written. Last, so the limits' rows are locked for the commit alone (decision 082).
  await passSendGate(tx, { producer: producer.name, ...facts });
}
