import type { Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import { endOpenEpisodes } from "../alert/end-open-episodes";
import type { DeliveryEndpoint } from "./claim-notification-deliveries";

export type DeliveryOutcome =
  | { kind: "no_endpoint" }
  | { kind: "delivered"; status: number }
  | {
      kind: "failed";
      status: number | null;
      error: string;
      /** Given up (410, or the last attempt); otherwise due again at `nextAttemptAt`. */
      nextAttemptAt: Date | null;
      /** The endpoint or alert destination that answered 410 Gone, to be disabled. */
      disable: Pick<DeliveryEndpoint, "id" | "owner"> | null;
    };

/** Writes what became of one send of a webhook taken by claim-notification-deliveries. */
export async function recordDeliveryOutcome(
  db: Db,
  messageId: string,
  outcome: DeliveryOutcome,
  now = new Date(),
): Promise<void> {
  switch (outcome.kind) {
    case "no_endpoint":
      await db.notificationOutbox.update({
        where: { id: messageId },
        data: { giveUpAt: now, lastError: "no active endpoint" },
      });
      return;
    case "delivered":
      await db.notificationOutbox.update({
        where: { id: messageId },
        data: { deliveredAt: now, lastStatus: outcome.status, lastError: null },
      });
      return;
    case "failed":
      if (outcome.disable?.owner === "producer_endpoint") {
        await db.notificationEndpoint.update({ where: { id: outcome.disable.id }, data: { disabledAt: now } });
      } else if (outcome.disable?.owner === "alert_destination") {
        const { id } = outcome.disable;
        await inTransaction(db, async (tx) => {
          await tx.alertDestination.update({ where: { id }, data: { disabledAt: now } });
          await endOpenEpisodes(tx, { destinationId: id });
        });
      }
      await db.notificationOutbox.update({
        where: { id: messageId },
        data: {
          lastStatus: outcome.status,
          lastError: outcome.error,
          ...(outcome.nextAttemptAt ? { nextAttemptAt: outcome.nextAttemptAt } : { giveUpAt: now }),
        },
      });
      return;
  }
}
