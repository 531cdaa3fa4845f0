import type { Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import type { AttemptOutcome } from "@/lib/domain/notification-attempts";
import type { DeliveryEndpoint } from "./claim-notification-deliveries";

export type DeliveryOutcome =
  | { kind: "no_endpoint" }
  | { kind: "delivered"; status: number }
  | {
      kind: "failed";
      status: number | null;
      error: string;
      /** How the send failed, in the log's words; by its status when not given. */
      answer?: AttemptOutcome;
      /** Given up (410, or the last attempt); otherwise due again at `nextAttemptAt`. */
      nextAttemptAt: Date | null;
      /** The endpoint or alert destination that answered 410 Gone, to be disabled. */
      disable: Pick<DeliveryEndpoint, "id" | "owner"> | null;
    };

/** What disables an alert destination that answered 410, handed in by whoever sends alerts (the worker). */
export type DestinationGone = (tx: Db, destinationId: string, now: Date) => Promise<void>;

/** One row of the message's send log (decision 066), numbered by the sends counted so far. */
async function logAttempt(db: Db, messageId: string, outcome: AttemptOutcome, status: number | null, now: Date) {
  await db.$executeRaw`
    INSERT INTO notification_attempts (message_id, attempt, outcome, status, answered_at)
    SELECT id, attempts, ${outcome}, ${status}::int, ${now} FROM notification_outbox WHERE id = ${messageId}`;
}

/**
 * Writes what became of one send of a webhook taken by claim-notification-deliveries, and logs the send. Without
 * `destinationGone` (a person's resend, which sends producer messages only) a gone alert
 * destination's message is given up and the destination left to the worker's next send.
 */
export async function recordDeliveryOutcome(
  db: Db,
  messageId: string,
  outcome: DeliveryOutcome,
  now = new Date(),
  destinationGone?: DestinationGone,
): Promise<void> {
  switch (outcome.kind) {
    case "no_endpoint":
      await db.notificationOutbox.update({
        where: { id: messageId },
        data: { giveUpAt: now, lastError: "no active endpoint" },
      });
      await logAttempt(db, messageId, "no_endpoint", null, now);
      return;
    case "delivered":
      await db.notificationOutbox.update({
        where: { id: messageId },
        data: { deliveredAt: now, lastStatus: outcome.status, lastError: null },
      });
      await logAttempt(db, messageId, "delivered", outcome.status, now);
      return;
    case "failed":
      if (outcome.disable?.owner === "producer_endpoint") {
        await db.notificationEndpoint.update({ where: { id: outcome.disable.id }, data: { disabledAt: now } });
      } else if (outcome.disable?.owner === "alert_destination" && destinationGone) {
        const { id } = outcome.disable;
        await inTransaction(db, (tx) => destinationGone(tx, id, now));
      }
      await db.notificationOutbox.update({
        where: { id: messageId },
        data: {
          lastStatus: outcome.status,
          lastError: outcome.error,
          ...(outcome.nextAttemptAt ? { nextAttemptAt: outcome.nextAttemptAt } : { giveUpAt: now }),
        },
      });
      await logAttempt(
        db,
        messageId,
        outcome.answer ?? (outcome.status === null ? "no_answer" : "error_answer"),
        outcome.status,
        now,
      );
      return;
  }
}
