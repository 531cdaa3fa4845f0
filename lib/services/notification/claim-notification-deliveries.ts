import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";

/** A producer's notification (`producer`) or an alert for one destination (`alertDestinationId`). */
export type DueNotification = {
  id: string;
  producer: string | null;
  alertDestinationId: string | null;
  payload: unknown;
  attempts: number;
};

/**
 * Takes up to `limit` due webhooks from the outbox for sending: each one's next attempt moves
 * `leaseSeconds` ahead (nobody else picks it up meanwhile; a crash makes it due again) and its
 * attempt count goes up. Concurrent dispatchers skip each other's rows. Oldest first.
 */
export async function claimNotificationDeliveries(
  db: Db,
  options: { limit: number; leaseSeconds: number; alertsOnly?: boolean },
): Promise<DueNotification[]> {
  const which = options.alertsOnly ? Prisma.sql`AND alert_destination_id IS NOT NULL` : Prisma.empty;
  // RETURNING comes back in no particular order: sort the batch so receivers hear oldest first.
  return db.$queryRaw<DueNotification[]>`
    WITH taken AS (
      UPDATE notification_outbox o
      SET next_attempt_at = now() + make_interval(secs => ${options.leaseSeconds}::int), attempts = o.attempts + 1
      WHERE o.id IN (
        SELECT id FROM notification_outbox
        WHERE delivered_at IS NULL AND give_up_at IS NULL AND next_attempt_at <= now() ${which}
        ORDER BY next_attempt_at LIMIT ${options.limit} FOR UPDATE SKIP LOCKED)
      RETURNING o.id, o.producer, o.alert_destination_id, o.payload, o.attempts, o.created_at)
    SELECT id, producer, alert_destination_id::text AS "alertDestinationId", payload, attempts
    FROM taken ORDER BY created_at, id`;
}

/**
 * Where one message goes: a producer's endpoint or an alert destination, each signed with its
 * Standard Webhooks secret, except a Slack-compatible destination (`signingSecret` null), whose URL
 * is its credential. `owner` says which table to disable when the receiver answers 410 Gone.
 */
export type DeliveryEndpoint = {
  id: string;
  owner: "producer_endpoint" | "alert_destination";
  url: string;
  signingSecret: string | null;
};

/** The message's admin-configured destination, or null when there is none or it is disabled. */
export async function deliveryEndpointFor(
  db: Db,
  message: Pick<DueNotification, "producer" | "alertDestinationId">,
): Promise<DeliveryEndpoint | null> {
  if (message.alertDestinationId) {
    const destination = await db.alertDestination.findUnique({ where: { id: message.alertDestinationId } });
    if (!destination || destination.disabledAt) return null;
    return {
      id: destination.id,
      owner: "alert_destination",
      url: destination.url,
      signingSecret: destination.signingSecret,
    };
  }
  if (!message.producer) return null;
  const endpoint = await db.notificationEndpoint.findUnique({ where: { producer: message.producer } });
  if (!endpoint || endpoint.disabledAt) return null;
  return { id: endpoint.id, owner: "producer_endpoint", url: endpoint.url, signingSecret: endpoint.signingSecret };
}
