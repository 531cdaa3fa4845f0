import type { Db, Prisma } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import type { Principal } from "@/lib/domain/principal";
import { decideRegistration, type RegistrationFacts } from "@/lib/domain/registration";
import { sanitise } from "@/lib/domain/sanitise";
import { AppError } from "@/lib/errors";
import type { ParkCaseInput } from "@/lib/validation/park-case";
import { requireProducer } from "./actor";
import { recordAudit } from "./record-audit";
import { reserveHold } from "./reserve-hold";
import { type CaseRow, transitionCase } from "./transition-case";

export type ParkCaseResult = { caseId: string; created: boolean; stage: CaseRow["stage"]; state: CaseRow["state"] };

const json = (value: unknown) => sanitise(value) as Prisma.InputJsonValue;

/**
 * Rule 1: parking is idempotent. The same facts return the existing case; different facts for an
 * open case are refused; a resolved case re-parked with a new attempt or stage opens a new episode.
 * Two identical registrations racing both end on the one case (the loser retries and finds it).
 */
export async function parkCase(db: Db, actor: Principal, input: ParkCaseInput): Promise<ParkCaseResult> {
  const producer = requireProducer(actor);
  for (let attempt = 0; ; attempt++) {
    try {
      return await inTransaction(db, (tx) => parkOnce(tx, producer, input));
    } catch (error) {
      // A concurrent identical registration won: re-read and answer from what it wrote.
      const code = (error as { code?: string }).code;
      if ((code !== "P2002" && code !== "lost_race") || attempt >= 2) throw error;
    }
  }
}

async function parkOnce(tx: Prisma.TransactionClient, actor: Principal & { kind: "api_key" }, input: ParkCaseInput) {
  const facts: RegistrationFacts = {
    operationId: input.operationId,
    attemptId: input.attemptId,
    stage: input.stage,
    providerJobId: input.providerJobId ?? null,
    fingerprint: input.requestFingerprint,
  };
  const evidence = json(input.evidence);
  const operation = await tx.operation.findUnique({
    where: { producer_operationId: { producer: actor.name, operationId: input.operationId } },
    include: { case: true },
  });
  const existing = operation?.case
    ? {
        registered: {
          operationId: operation.operationId,
          attemptId: operation.case.attemptId,
          stage: operation.case.registeredStage,
          providerJobId: operation.case.registeredJobId,
          fingerprint: operation.case.registeredFingerprint,
        },
        state: operation.case.state,
      }
    : null;
  const verdict = decideRegistration(existing, facts);
  if (!verdict.ok) {
    const code = verdict.error.code === "conflicting_registration" ? "conflicting_registration" : "invalid_request";
    throw new AppError(code, verdict.error.message);
  }
  const registered = {
    registeredStage: input.stage,
    registeredJobId: facts.providerJobId,
    registeredFingerprint: input.requestFingerprint,
    lastEvidence: evidence,
    pollAttempts: input.counters?.pollAttempts ?? 0,
    deliveryAttempts: input.counters?.deliveryAttempts ?? 0,
    submittedAt: input.submittedAt ? new Date(input.submittedAt) : null,
    retryDeadline: input.retryDeadline ? new Date(input.retryDeadline) : null,
  };

  if (verdict.value.kind === "existing" && operation?.case) {
    const row = operation.case;
    return { caseId: row.id, created: false, stage: row.stage, state: row.state };
  }

  if (verdict.value.kind === "new_episode" && operation?.case) {
    const row = operation.case;
    const attempt = await findOrCreateAttempt(tx, operation.id, input);
    const held = await reserveHold(tx, actor, {
      caseId: row.id,
      episode: row.episode + 1,
      attemptRef: attempt.id,
      hold: input.hold,
    });
    const { after } = await transitionCase(tx, {
      row: { ...row, episode: row.episode + 1 },
      actor,
      command: { type: "reopen", stage: input.stage, providerJobId: facts.providerJobId },
      evidence,
      extra: {
        ...registered,
        episode: { increment: 1 },
        attemptRef: attempt.id,
        attemptId: input.attemptId,
        heldMicros: { increment: held },
        assigneeId: null,
        outcome: null,
        resolvedAt: null,
        openedAt: new Date(),
      },
    });
    return { caseId: row.id, created: true, stage: after.stage, state: after.state };
  }

  const created = await tx.operation.create({
    data: {
      producer: actor.name,
      operationId: input.operationId,
      provider: input.provider,
      model: input.model,
      requestFingerprint: input.requestFingerprint,
      ...(input.request ? { requestSummary: json(input.request) } : {}),
    },
  });
  const attempt = await findOrCreateAttempt(tx, created.id, input);
  const row = await tx.case.create({
    data: {
      ...registered,
      operationRef: created.id,
      attemptRef: attempt.id,
      producer: actor.name,
      operationId: input.operationId,
      attemptId: input.attemptId,
      provider: input.provider,
      model: input.model,
      stage: input.stage,
      state: "parked",
      providerJobId: facts.providerJobId,
      currency: input.hold.currency,
    },
  });
  await recordAudit(tx, {
    actor,
    kind: "parked",
    caseId: row.id,
    episode: 1,
    after: { stage: row.stage, state: row.state, providerJobId: row.providerJobId, version: row.version },
    evidence,
  });
  const held = await reserveHold(tx, actor, { caseId: row.id, episode: 1, attemptRef: attempt.id, hold: input.hold });
  await tx.case.update({ where: { id: row.id }, data: { heldMicros: held } });
  return { caseId: row.id, created: true, stage: row.stage, state: row.state };
}

async function findOrCreateAttempt(tx: Prisma.TransactionClient, operationRef: string, input: ParkCaseInput) {
  const found = await tx.attempt.findUnique({
    where: { operationRef_attemptId: { operationRef, attemptId: input.attemptId } },
  });
  const data = {
    providerJobId: input.providerJobId ?? found?.providerJobId ?? null,
    submittedAt: input.submittedAt ? new Date(input.submittedAt) : (found?.submittedAt ?? null),
  };
  if (found) return tx.attempt.update({ where: { id: found.id }, data });
  return tx.attempt.create({ data: { ...data, operationRef, attemptId: input.attemptId, kind: "original" } });
}
