import { recordAudit } from "@/lib/audit/writer";
import type { Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import { REQUEUES_PER_NOTIFICATION_PER_HOUR } from "@/lib/domain/notification-attempts";
import type { Principal } from "@/lib/domain/principal";
import { MAX_WEBHOOK_ATTEMPTS } from "@/lib/domain/webhook-retry";
import { AppError } from "@/lib/errors";
import { requireCaseInScope, requirePermission } from "../access/actor";
import { consumeRateLimit } from "../access/consume-rate-limit";
import { findDeliverableEndpoint } from "./notification-endpoint-signature";

const WINDOW_SECONDS = 3600;

/**
 * A person puts one of a case's producer notifications back in the worker's queue (decision 066):
 * one delivered that the receiver says it lost, or one given up. Bounded twice: at most
 * REQUEUES_PER_NOTIFICATION_PER_HOUR a message an hour, counted whatever they come to, and each
 * re-queue is one more send (its count set to the last attempt, so a failure gives up again rather
 * than backing off for days). Audited on the case's timeline with who asked; the send itself is the
 * worker's, after this commits (DESIGN rule 9).
 */
export async function requeueNotification(
  db: Db,
  actor: Principal,
  input: { caseId: string; webhookId: string },
): Promise<{ webhookId: string }> {
  const user = requirePermission(actor, "case:notify_producer");
  const target = await db.case.findUnique({
    where: { id: input.caseId },
    select: { id: true, producer: true, episode: true },
  });
  if (!target) throw new AppError("not_found", "No such case.");
  requireCaseInScope(user, target.producer);
  const message = await db.notificationOutbox.findFirst({
    where: { id: input.webhookId, caseId: target.id, producer: { not: null } },
    select: { id: true, eventType: true, deliveredAt: true, giveUpAt: true },
  });
  if (!message) throw new AppError("not_found", "No such notification on this case.");
  if (!message.deliveredAt && !message.giveUpAt) {
    throw new AppError("conflict", "This notification is waiting to be sent already.");
  }
  if (!(await findDeliverableEndpoint(db, target.producer))) {
    throw new AppError(
      "endpoint_disabled",
      "The producer has no enabled notification endpoint (a 410 answer disables it): enable it before resending.",
    );
  }
  const limit = await consumeRateLimit(
    db,
    `notify-requeue:${message.id}`,
    REQUEUES_PER_NOTIFICATION_PER_HOUR,
    WINDOW_SECONDS,
  );
  if (!limit.allowed) {
    throw new AppError(
      "rate_limited",
      `At most ${REQUEUES_PER_NOTIFICATION_PER_HOUR} resends of one notification an hour.`,
      { retryAfterSeconds: limit.retryAfterSeconds },
    );
  }
  await inTransaction(db, async (tx) => {
    const moved = await tx.$executeRaw`
      UPDATE notification_outbox
         SET delivered_at = NULL, give_up_at = NULL, next_attempt_at = now(),
             attempts = GREATEST(attempts, ${MAX_WEBHOOK_ATTEMPTS - 1}::int)
       WHERE id = ${message.id} AND (delivered_at IS NOT NULL OR give_up_at IS NOT NULL)`;
    if (moved === 0) throw new AppError("conflict", "Someone put this notification back in the queue a moment ago.");
    await recordAudit(tx, {
      actor: user,
      kind: "notification_requeued",
      caseId: target.id,
      episode: target.episode,
      evidence: { webhookId: message.id, eventType: message.eventType, wasDelivered: message.deliveredAt !== null },
    });
  });
  return { webhookId: message.id };
}
