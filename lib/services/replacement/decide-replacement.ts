import { recordAudit } from "@/lib/audit/writer";
import type { Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import { planReserve } from "@/lib/domain/holds";
import { actorColumns, type Principal } from "@/lib/domain/principal";
import { canAuthorizeReplacement } from "@/lib/domain/replacement";
import { AppError } from "@/lib/errors";
import type { ConfiguredAdapters } from "@/lib/providers";
import { requireCaseInScope, requirePermission, type UserActor } from "../access/actor";
import {
  checkedCase,
  lookForOriginalJob,
  recordCheck,
  refuseUnsearchableNoJob,
  restsOnNoJob,
} from "../case/look-for-original-job";
import { returnToReconciliation } from "../case/return-to-reconciliation";
import { loadCase, transitionCase } from "../case/transition-case";
import { reserve } from "../hold/writer/reserve";
import { issueReplacementPermit } from "../permit/issue-replacement-permit";
import { enforceSpendLimit } from "../spend-limit/enforce-spend-limit";

/**
 * What authorising may need besides the database: the adapters to look at the provider again, or a
 * function building them, called only when a look is needed (a misconfigured provider then fails
 * that look, not every authorisation).
 */
export type AuthorizeContext = {
  adapters?: ConfiguredAdapters | (() => ConfiguredAdapters);
  now?: Date;
  signal?: AbortSignal;
};

function adaptersOf(context: AuthorizeContext): ConfiguredAdapters | undefined {
  try {
    return typeof context.adapters === "function" ? context.adapters() : context.adapters;
  } catch {
    return undefined;
  }
}

/** A failed check can be repeated soon; a minute spares a provider that is down. */
const CHECK_RETRY_AFTER_SECONDS = 60;

/**
 * Four-eyes (section 6): a finance user other than the requester authorises a replacement; only
 * then does the replacement attempt exist, linked to the original, with its own fresh hold and its
 * send permit (decision 036). The case's episode ends here; the producer submits the replacement
 * itself, under that permit.
 *
 * Rule 14: when the failure rests on "no job exists", the provider is asked again first, outside
 * any transaction. A job that is visible now refuses the authorisation and sends the case back to
 * reconciliation; a check that cannot be completed refuses it and changes nothing.
 *
 * A replacement that would take its currency past a spend limit finance set is refused with the
 * figures (decision 030), and nothing is authorised.
 */
export async function authorizeReplacement(
  db: Db,
  actor: Principal,
  requestId: string,
  input: { evidence: string },
  context: AuthorizeContext = {},
) {
  const user = requirePermission(actor, "replacement:authorize");
  const checkedEpisode = await lookAgainIfNeeded(db, user, requestId, input, context);
  return inTransaction(db, async (tx) => {
    // Serialises concurrent decisions on one request: the second sees it already authorised.
    await tx.$queryRaw`SELECT id FROM replacement_requests WHERE id = ${requestId}::uuid FOR UPDATE`;
    const request = await visibleRequest(tx, user, requestId);
    requireAuthorizable(request, user, context);
    const planned = planReserve(Number(request.amountMicros));
    if (!planned.ok) throw planned.error;
    const row = await loadCase(tx, request.caseId, user);
    // The check covered one episode; a case that moved on since needs a check of its own.
    // A no-job verdict recorded after the look was skipped needs the look too.
    const closable = row.state === "parked" && row.stage === "generation_failed";
    const unchecked = checkedEpisode === null && closable && (await restsOnNoJob(tx, row.id, row.episode));
    if (unchecked || (checkedEpisode !== null && checkedEpisode !== row.episode)) {
      throw new AppError("lost_race", "The case changed while the provider was checked; try again.");
    }
    // Finance's spend limits, checked under their lock so concurrent authorisations take turns.
    await enforceSpendLimit(tx, {
      currency: request.currency,
      producer: row.producer,
      amountMicros: Number(request.amountMicros),
      now: new Date(),
      // The figures of a limit on every producer are not for a person limited to some (decision 035).
      everyProducer: user.producers === null,
    });
    const original = await tx.attempt.findUniqueOrThrow({ where: { id: request.originalAttemptRef } });
    const sequence = await tx.attempt.count({ where: { operationRef: row.operationRef, kind: "replacement" } });
    const attempt = await tx.attempt.create({
      data: {
        operationRef: row.operationRef,
        provider: row.provider,
        attemptId: `${original.attemptId}-replacement-${sequence + 1}`,
        kind: "replacement",
        replacesAttemptId: original.id,
      },
    });
    const hold = await reserve(tx, {
      holdId: `replacement-${request.id}`,
      producer: row.producer,
      caseId: row.id,
      attemptRef: attempt.id,
      amountMicros: request.amountMicros,
      currency: request.currency,
      actorLabel: actorColumns(user).actorLabel,
    });
    const { count } = await tx.replacementRequest.updateMany({
      where: { id: request.id, status: "pending" },
      data: { status: "authorized", decidedById: user.userId, decidedAt: new Date(), newAttemptRef: attempt.id },
    });
    if (count === 0) throw new AppError("lost_race", "Someone else decided this request first.");
    await transitionCase(tx, {
      row,
      actor: user,
      command: { type: "close_for_replacement", evidence: input.evidence },
      evidence: {
        text: input.evidence,
        requestId: request.id,
        newAttemptId: attempt.attemptId,
        providerCheck: checkedEpisode === null ? "not_needed" : "nothing_found",
      },
      extra: { outcome: "replacement_authorized", heldMicros: { increment: hold.amountMicros } },
    });
    await recordAudit(tx, {
      actor: user,
      kind: "hold_reserved",
      caseId: row.id,
      episode: row.episode,
      after: { holdId: hold.holdId, amountMicros: Number(hold.amountMicros), currency: hold.currency },
    });
    // Decision 036: the paid create this authorises goes out under its own permit, like any send.
    const permit = await issueReplacementPermit(tx, {
      actor: user,
      producer: row.producer,
      operationRef: row.operationRef,
      operationId: row.operationId,
      attempt,
      hold,
      caseId: row.id,
      episode: row.episode,
      now: new Date(),
    });
    return {
      requestId: request.id,
      attemptId: attempt.attemptId,
      holdId: hold.holdId,
      permit: { token: permit.token, sendDeadline: permit.sendDeadline.toISOString() },
    };
  });
}

/** Declining needs the same role (and, like authorising, is never the requester's own call). */
export async function declineReplacement(db: Db, actor: Principal, requestId: string, input: { evidence: string }) {
  const user = requirePermission(actor, "replacement:authorize");
  return inTransaction(db, async (tx) => {
    const request = await visibleRequest(tx, user, requestId);
    if (request.requestedById === user.userId) {
      throw new AppError("four_eyes_violation", "The requester cannot decide their own replacement request.");
    }
    const { count } = await tx.replacementRequest.updateMany({
      where: { id: request.id, status: "pending" },
      data: { status: "declined", decidedById: user.userId, decidedAt: new Date() },
    });
    if (count === 0) throw new AppError("conflict", `This request is already ${request.status}.`);
    const row = await loadCase(tx, request.caseId, user);
    await recordAudit(tx, {
      actor: user,
      kind: "replacement_declined",
      caseId: row.id,
      episode: row.episode,
      evidence: { text: input.evidence, requestId: request.id },
    });
    return { requestId: request.id, status: "declined" as const };
  });
}

/** Four-eyes, status and expiry: the refusals that need neither the provider nor the case. */
/** The request, if `user` may see its case: another producer's request is no request (decision 035). */
async function visibleRequest(db: Db, user: UserActor, requestId: string) {
  const found = await db.replacementRequest.findUnique({
    where: { id: requestId },
    include: { case: { select: { producer: true } } },
  });
  if (!found) throw new AppError("not_found", "No such replacement request.");
  const { case: kase, ...request } = found;
  requireCaseInScope(user, kase.producer, "replacement request");
  return request;
}

function requireAuthorizable(
  request: { requestedById: string; status: Parameters<typeof canAuthorizeReplacement>[0]["status"]; expiresAt: Date },
  user: UserActor,
  context: AuthorizeContext,
): void {
  const allowed = canAuthorizeReplacement({
    requestedBy: request.requestedById,
    authorizer: { id: user.userId, roles: user.roles },
    status: request.status,
    expiresAt: request.expiresAt,
    now: context.now ?? new Date(),
  });
  if (!allowed.ok) throw allowed.error;
}

/**
 * Returns the episode that was checked (null when no check was needed). Throws the refusal when
 * the check found the original job or could not be made.
 */
async function lookAgainIfNeeded(
  db: Db,
  user: UserActor,
  requestId: string,
  input: { evidence: string },
  context: AuthorizeContext,
): Promise<number | null> {
  const request = await visibleRequest(db, user, requestId);
  // Refusals that need no provider are given without asking it (the transaction checks again).
  requireAuthorizable(request, user, context);
  const row = await loadCase(db, request.caseId, user);
  // A case that cannot be closed for a replacement anyway is refused by the transaction, unasked.
  if (row.state !== "parked" || row.stage !== "generation_failed") return null;
  if (!(await restsOnNoJob(db, row.id, row.episode))) return null;
  // A request made before its provider was known unsearchable: refused with the reason, not "try later".
  await refuseUnsearchableNoJob(db, row);
  const target = await checkedCase(db, row.id);
  const check = await lookForOriginalJob(
    db,
    adaptersOf(context),
    target,
    { kind: "before_paying", episode: row.episode },
    context.signal,
  );
  await recordCheck(db, target, check, "before_replacement");
  if (check.kind === "failed") {
    throw new AppError(
      "provider_check_failed",
      "The provider could not be checked for the original job, so nothing was authorised; try again later.",
      { retryAfterSeconds: CHECK_RETRY_AFTER_SECONDS },
    );
  }
  if (check.kind === "found") {
    await returnToReconciliation(db, user, { requestId, episode: row.episode, matches: check.matches, input });
    throw new AppError(
      "original_job_found",
      "The provider now shows the original job: nothing was authorised and the case is back in reconciliation.",
    );
  }
  return row.episode;
}
