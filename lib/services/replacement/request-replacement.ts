import { recordAudit } from "@/lib/audit/writer";
import type { Db, Prisma } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import type { Principal } from "@/lib/domain/principal";
import { isReplacementExpired, replacementExpiry } from "@/lib/domain/replacement";
import { AppError } from "@/lib/errors";
import { requirePermission, type UserActor } from "../access/actor";
import { refuseUnsearchableNoJob } from "../case/look-for-original-job";
import { recordDecision } from "../case/record-decision";
import { type CaseRow, loadCase, transitionCase } from "../case/transition-case";

export const DEFAULT_REPLACEMENT_TTL_SECONDS = 72 * 60 * 60;

/**
 * A reviewer asks for a new paid generation for a proven failure. Nothing is bought here: the
 * request only waits for a different finance user (section 6), and expires if nobody decides.
 * Its cost defaults to the original attempt's hold, the duplicate spend it risks.
 */
export async function requestReplacement(
  db: Db,
  actor: Principal,
  caseId: string,
  input: { evidence: string; amountMicros?: number },
  options: { ttlSeconds?: number } = {},
) {
  const user = requirePermission(actor, "replacement:request");
  return inTransaction(db, async (tx) => {
    const row = await loadCase(tx, caseId, user);
    await refuseUnsearchableNoJob(tx, row);
    await transitionCase(tx, {
      row,
      actor: user,
      command: { type: "request_replacement", evidence: input.evidence },
      evidence: { text: input.evidence },
    });
    await recordDecision(tx, { row, actor: user, kind: "request_replacement", evidence: input.evidence });
    const original = await tx.hold.findUnique({ where: { attemptRef: row.attemptRef } });
    const amountMicros = input.amountMicros ?? (original ? Number(original.amountMicros) : null);
    if (!amountMicros) throw new AppError("invalid_request", "State the replacement's cost (amountMicros).");
    const pending = await tx.replacementRequest.findFirst({ where: { caseId, status: "pending" } });
    if (pending && !isReplacementExpired(pending.expiresAt, new Date())) {
      throw new AppError("conflict", "A replacement request is already waiting for this case.");
    }
    // Nobody can authorise an expired request any more; left pending, it would block every new one.
    if (pending) await closeExpiredRequest(tx, user, row, pending.id);
    const request = await tx.replacementRequest.create({
      data: {
        caseId,
        originalAttemptRef: row.attemptRef,
        requestedById: user.userId,
        evidence: input.evidence,
        amountMicros: BigInt(amountMicros),
        currency: original?.currency ?? row.currency,
        expiresAt: replacementExpiry(new Date(), options.ttlSeconds ?? DEFAULT_REPLACEMENT_TTL_SECONDS),
      },
    });
    return { requestId: request.id, amountMicros, currency: request.currency, expiresAt: request.expiresAt };
  });
}

async function closeExpiredRequest(tx: Prisma.TransactionClient, user: UserActor, row: CaseRow, requestId: string) {
  const { count } = await tx.replacementRequest.updateMany({
    where: { id: requestId, status: "pending" },
    data: { status: "expired" },
  });
  if (count === 0) throw new AppError("lost_race", "Someone else decided the earlier request first; reload.");
  await recordAudit(tx, {
    actor: user,
    kind: "replacement_expired",
    caseId: row.id,
    episode: row.episode,
    evidence: { requestId },
  });
}
