import type { Db, Prisma } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import { isUniqueViolation } from "@/lib/db/unique-violation";
import { planReserve } from "@/lib/domain/holds";
import type { Principal } from "@/lib/domain/principal";
import { decideRegistration, type RegistrationFacts } from "@/lib/domain/registration";
import { storedText } from "@/lib/domain/stored-text";
import type { Env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import type { ParkCaseInput } from "@/lib/validation/park-case";
import { type ProducerActor, requireProducer } from "../access/actor";
import { chargeAfterRelease } from "../hold/charge-after-release";
import { reserveHold } from "../hold/reserve-hold";
import { refuseContradictedPark } from "../job-claim/claim-job";
import { parkFirstEpisode, type Registration, readRegistration } from "./park-case-first-episode";
import { requireReadableJobId } from "./provider-job-id";
import { type CaseRow, transitionCase } from "./transition-case";

export type ParkCaseResult = { caseId: string; created: boolean; stage: CaseRow["stage"]; state: CaseRow["state"] };

export type ParkOptions = {
  /**
   * When a first registration happened, for data loaded after the fact (the demo's backlog): the
   * case, its hold, the reserve entry and the audit events are all written with this time, so their
   * ages and the hourly figures agree. The API never passes it: a producer's case opens now.
   */
  openedAt?: Date;
  /**
   * The deployment's settings, handed in by the caller (decision 044): STORE_PROMPTS=1 keeps full
   * prompts in the request summary. Absent, prompts are kept as a digest (DESIGN rule 10).
   */
  settings?: Pick<Env, "STORE_PROMPTS">;
};

const json = (value: unknown, settings?: Pick<Env, "STORE_PROMPTS">) =>
  storedText(value, { storePrompts: settings?.STORE_PROMPTS === "1" }) as Prisma.InputJsonValue;

/**
 * Rule 1: parking is idempotent. The same facts return the existing case; different facts for an
 * open case are refused; a resolved case re-parked with a new attempt or stage opens a new episode.
 * Two identical registrations racing both end on the one case (the loser retries and finds it).
 *
 * An identical replay is answered by one read (`readRegistration`, which also reads the provider's
 * evidence on a named job); a first registration is that read and one write statement
 * (park-case-first-episode.ts); only a new episode on an existing case takes the transaction below.
 * `read` is that read when the caller made it already (`parkOperation`, decision 083).
 */
export async function parkCase(
  db: Db,
  actor: Principal,
  input: ParkCaseInput,
  options: ParkOptions = {},
  read?: Registration,
): Promise<ParkCaseResult> {
  const producer = requireProducer(actor);
  requireReadableJobId(input.provider, input.providerJobId);
  const facts = factsOf(input);
  const valid = decideRegistration(null, facts);
  if (!valid.ok) throw new AppError("invalid_request", valid.error.message);
  const plan = planReserve(input.hold.amountMicros);
  if (!plan.ok) throw new AppError("invalid_request", plan.error.message);
  const registration = read ?? (await readRegistration(db, producer, input));
  const replayed = answerReplay(registration, input, facts);
  if (replayed) return replayed;
  refuseContradictedPark(registration.evidence, { fingerprint: input.requestFingerprint, model: input.model });
  for (let attempt = 0; ; attempt++) {
    try {
      const first = await parkFirstEpisode(db, producer, input, options.openedAt ?? null, options.settings);
      if (first.kind === "created")
        return { caseId: first.caseId, created: true, stage: first.stage, state: first.state };
      if (first.kind === "hold_taken" || first.kind === "raced")
        await refuseIfPermitted(db, producer, input.operationId);
      if (first.kind === "hold_taken") {
        throw new AppError("conflicting_registration", "This holdId already belongs to another attempt.");
      }
      if (first.kind === "job_in_use") throw jobInUse();
      if (first.kind === "raced") throw new AppError("lost_race", "A concurrent registration is being written.");
      const verdict = decideRegistration({ registered: first.registered, state: first.state }, facts);
      if (!verdict.ok) throw registrationRefused(verdict.error);
      if (verdict.value.kind === "existing") {
        return { caseId: first.caseId, created: false, stage: first.stage, state: first.state };
      }
      return await inTransaction(db, (tx) => parkNewEpisode(tx, producer, input, options.settings));
    } catch (error) {
      // A concurrent identical registration won: re-read and answer from what it wrote.
      if (!lostRace(error) || attempt >= 2) throw error;
    }
  }
}

/**
 * An identical re-registration answered from the read, before the write statement: the answer the
 * path below gives it (its provider-evidence check lets the attempt's own job through, and the
 * statement finds the case and judges it `existing`), without its locks and triggers
 * (docs/performance.md §4). Anything the read cannot settle (no case yet, other facts, a new
 * episode, a job not recorded for this attempt) takes the path below, which reads again.
 */
function answerReplay({ found }: Registration, input: ParkCaseInput, facts: RegistrationFacts): ParkCaseResult | null {
  if (!found || (input.providerJobId && !found.jobIsItsOwn)) return null;
  const verdict = decideRegistration({ registered: found.registered, state: found.state }, facts);
  if (!verdict.ok || verdict.value.kind !== "existing") return null;
  return { caseId: found.caseId, created: false, stage: found.stage, state: found.state };
}

/**
 * An operation sent under a send permit (DESIGN 6a) has no case until its permit parks: the send's
 * outcome is reported on the permit, which keeps the one hold reserved for it.
 */
async function refuseIfPermitted(db: Db, producer: ProducerActor, operationId: string): Promise<void> {
  const permit = await db.sendPermit.findFirst({
    where: { operation: { producer: producer.name, operationId } },
    orderBy: { token: "desc" },
    select: { attempt: { select: { attemptId: true } } },
  });
  if (!permit) return;
  throw new AppError(
    "conflicting_registration",
    `This operation was sent under a send permit: report its outcome at POST /api/v1/attempts/${encodeURIComponent(permit.attempt.attemptId)}/outcome.`,
  );
}

function factsOf(input: ParkCaseInput): RegistrationFacts {
  return {
    operationId: input.operationId,
    attemptId: input.attemptId,
    stage: input.stage,
    providerJobId: input.providerJobId ?? null,
    fingerprint: input.requestFingerprint,
    provider: input.provider,
    model: input.model,
    holdId: input.hold.holdId,
    amountMicros: BigInt(input.hold.amountMicros),
    currency: input.hold.currency,
  };
}

/** Rule 11. A producer learns nothing about the other operation: it may be another producer's. */
function jobInUse(): AppError {
  return new AppError("provider_job_in_use", "This provider job is already recorded for another operation or attempt.");
}

function registrationRefused(error: { code: string; message: string }): AppError {
  const code = error.code === "conflicting_registration" ? "conflicting_registration" : "invalid_request";
  return new AppError(code, error.message);
}

/** A concurrent identical registration won (a unique key, or the statement saw its half-written twin). */
function lostRace(error: unknown): boolean {
  return isUniqueViolation(error) || (error as { code?: string }).code === "lost_race";
}

/** A resolved case re-parked with a new attempt or stage: read again under the transaction and reopen. */
async function parkNewEpisode(
  tx: Prisma.TransactionClient,
  actor: ProducerActor,
  input: ParkCaseInput,
  settings?: Pick<Env, "STORE_PROMPTS">,
) {
  const facts = factsOf(input);
  const evidence = json(input.evidence, settings);
  const operation = await tx.operation.findUnique({
    where: { producer_operationId: { producer: actor.name, operationId: input.operationId } },
    include: { case: true },
  });
  const row = operation?.case;
  if (!operation || !row) throw new AppError("lost_race", "The operation is not registered yet.");
  const hold = await tx.hold.findUnique({ where: { attemptRef: row.attemptRef } });
  const verdict = decideRegistration(
    {
      registered: {
        operationId: operation.operationId,
        attemptId: row.attemptId,
        stage: row.registeredStage,
        providerJobId: row.registeredJobId,
        fingerprint: row.registeredFingerprint,
        provider: row.provider,
        model: row.model,
        holdId: hold?.holdId ?? "",
        amountMicros: hold?.amountMicros ?? 0n,
        currency: hold?.currency ?? "",
      },
      state: row.state,
    },
    facts,
  );
  if (!verdict.ok) throw registrationRefused(verdict.error);
  if (verdict.value.kind !== "new_episode") {
    return { caseId: row.id, created: false, stage: row.stage, state: row.state };
  }
  await refuseBesideSendInFlight(tx, operation.id, input.attemptId);
  const attempt = await findOrCreateAttempt(tx, operation, input);
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
      registeredStage: input.stage,
      registeredJobId: facts.providerJobId,
      registeredFingerprint: input.requestFingerprint,
      lastEvidence: evidence,
      pollAttempts: input.counters?.pollAttempts ?? 0,
      deliveryAttempts: input.counters?.deliveryAttempts ?? 0,
      submittedAt: input.submittedAt ? new Date(input.submittedAt) : null,
      retryDeadline: input.retryDeadline ? new Date(input.retryDeadline) : null,
      episode: { increment: 1 },
      attemptRef: attempt.id,
      attemptId: input.attemptId,
      heldMicros: { increment: held },
      assigneeId: null,
      outcome: null,
      resolvedAt: null,
      outputsExpireAt: null,
      escalatedAt: null,
      escalationReason: null,
      // A new episode has made no attempt yet (decision 069).
      lastAttemptAt: null,
      openedAt: new Date(),
    },
  });
  await joinPermit(tx, attempt.id, row.id, input.stage);
  if (held === 0 && input.stage === "delivery") await chargeIfReleased(tx, actor, attempt.id);
  return { caseId: row.id, created: true, stage: after.stage, state: after.state };
}

/**
 * A job parked at delivery completed, on the producer's word as a completion report is taken: an
 * attempt that came with its hold (an authorised replacement) whose hold finance released or wrote
 * off before the send parked is charged after release (DESIGN rule 18).
 */
async function chargeIfReleased(tx: Prisma.TransactionClient, actor: ProducerActor, attemptRef: string) {
  const hold = await tx.hold.findUnique({ where: { attemptRef }, select: { id: true } });
  if (hold) await chargeAfterRelease(tx, actor, { holdRef: hold.id, how: "the producer parked the job at delivery" });
}

/**
 * While an attempt of the operation is being sent under a permit (an authorised replacement), its
 * report or its deadline opens the next episode: another attempt cannot take the case meanwhile.
 */
async function refuseBesideSendInFlight(tx: Prisma.TransactionClient, operationRef: string, attemptId: string) {
  const inFlight = await tx.sendPermit.findFirst({
    where: { operationRef, caseRef: null, status: { in: ["live", "accepted"] } },
    select: { attempt: { select: { attemptId: true } } },
  });
  if (!inFlight || inFlight.attempt.attemptId === attemptId) return;
  throw new AppError(
    "conflicting_registration",
    `Attempt "${inFlight.attempt.attemptId}" of this operation is being sent under a send permit: report its outcome at POST /api/v1/attempts/${encodeURIComponent(inFlight.attempt.attemptId)}/outcome.`,
  );
}

/**
 * An attempt sent under a permit the product issued (an authorised replacement, decision 036) that
 * its producer parks here instead of reporting on the permit: the permit is parked with this
 * episode, as its own report would have parked it, so its deadline parks nothing a second time.
 */
async function joinPermit(
  tx: Prisma.TransactionClient,
  attemptRef: string,
  caseId: string,
  stage: ParkCaseInput["stage"],
) {
  const status = stage === "submission_uncertain" ? "uncertain" : stage === "generation_failed" ? "failed" : "accepted";
  await tx.sendPermit.updateMany({
    where: { attemptRef, caseRef: null, status: { in: ["live", "accepted"] } },
    data: { status, caseRef: caseId },
  });
}

async function findOrCreateAttempt(
  tx: Prisma.TransactionClient,
  operation: { id: string; provider: string },
  input: ParkCaseInput,
) {
  const operationRef = operation.id;
  const found = await tx.attempt.findUnique({
    where: { operationRef_attemptId: { operationRef, attemptId: input.attemptId } },
  });
  // The episode's job must be this attempt's own: another attempt's (even of this operation) has its
  // own hold, and one job's charge settles one hold.
  if (input.providerJobId) {
    const owner = await tx.attempt.findUnique({
      where: { provider_providerJobId: { provider: operation.provider, providerJobId: input.providerJobId } },
      select: { id: true },
    });
    if (owner && owner.id !== found?.id) throw jobInUse();
  }
  const data = {
    providerJobId: input.providerJobId ?? found?.providerJobId ?? null,
    submittedAt: input.submittedAt ? new Date(input.submittedAt) : (found?.submittedAt ?? null),
  };
  if (found) return tx.attempt.update({ where: { id: found.id }, data });
  return tx.attempt.create({
    data: { ...data, operationRef, provider: operation.provider, attemptId: input.attemptId, kind: "original" },
  });
}
