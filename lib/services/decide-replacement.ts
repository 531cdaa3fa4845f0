import type { Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import { planReserve } from "@/lib/domain/holds";
import type { Principal } from "@/lib/domain/principal";
import { canAuthorizeReplacement } from "@/lib/domain/replacement";
import { AppError } from "@/lib/errors";
import { actorColumns, requirePermission } from "./actor";
import { recordAudit } from "./record-audit";
import { loadCase, transitionCase } from "./transition-case";

/**
 * Four-eyes (section 6): a finance user other than the requester authorises a replacement; only
 * then does the replacement attempt exist, linked to the original, with its own fresh hold. The
 * case's episode ends here; the producer submits the replacement itself.
 */
export async function authorizeReplacement(db: Db, actor: Principal, requestId: string, input: { evidence: string }) {
  const user = requirePermission(actor, "replacement:authorize");
  return inTransaction(db, async (tx) => {
    // Serialises concurrent decisions on one request: the second sees it already authorised.
    await tx.$queryRaw`SELECT id FROM replacement_requests WHERE id = ${requestId}::uuid FOR UPDATE`;
    const request = await tx.replacementRequest.findUnique({ where: { id: requestId } });
    if (!request) throw new AppError("not_found", "No such replacement request.");
    const check = canAuthorizeReplacement({
      requestedBy: request.requestedById,
      authorizer: { id: user.userId, roles: user.roles },
      status: request.status,
      expiresAt: request.expiresAt,
      now: new Date(),
    });
    if (!check.ok) throw check.error;
    const reserve = planReserve(Number(request.amountMicros));
    if (!reserve.ok) throw reserve.error;
    const row = await loadCase(tx, request.caseId);
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
    const hold = await tx.hold.create({
      data: {
        holdId: `replacement-${request.id}`,
        producer: row.producer,
        caseId: row.id,
        attemptRef: attempt.id,
        amountMicros: request.amountMicros,
        currency: request.currency,
      },
    });
    await tx.ledgerEntry.create({
      data: {
        holdRef: hold.id,
        kind: "reserve",
        amountMicros: hold.amountMicros,
        actorLabel: actorColumns(user).actorLabel,
      },
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
      evidence: { text: input.evidence, requestId: request.id, newAttemptId: attempt.attemptId },
      extra: { outcome: "replacement_authorized", heldMicros: { increment: hold.amountMicros } },
    });
    await recordAudit(tx, {
      actor: user,
      kind: "hold_reserved",
      caseId: row.id,
      episode: row.episode,
      after: { holdId: hold.holdId, amountMicros: Number(hold.amountMicros), currency: hold.currency },
    });
    return { requestId: request.id, attemptId: attempt.attemptId, holdId: hold.holdId };
  });
}

/** Declining needs the same role (and, like authorising, is never the requester's own call). */
export async function declineReplacement(db: Db, actor: Principal, requestId: string, input: { evidence: string }) {
  const user = requirePermission(actor, "replacement:authorize");
  return inTransaction(db, async (tx) => {
    const request = await tx.replacementRequest.findUnique({ where: { id: requestId } });
    if (!request) throw new AppError("not_found", "No such replacement request.");
    if (request.requestedById === user.userId) {
      throw new AppError("four_eyes_violation", "The requester cannot decide their own replacement request.");
    }
    const { count } = await tx.replacementRequest.updateMany({
      where: { id: request.id, status: "pending" },
      data: { status: "declined", decidedById: user.userId, decidedAt: new Date() },
    });
    if (count === 0) throw new AppError("conflict", `This request is already ${request.status}.`);
    const row = await loadCase(tx, request.caseId);
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
