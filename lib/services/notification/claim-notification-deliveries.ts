import type { Db } from "@/lib/db/client";

export type DueNotification = { id: string; producer: string; payload: unknown; attempts: number };

/**
 * Takes up to `limit` due webhooks from the outbox for sending: each one's next attempt moves
 * `leaseSeconds` ahead (nobody else picks it up meanwhile; a crash makes it due again) and its
 * attempt count goes up. Concurrent dispatchers skip each other's rows. Oldest first.
 */
export async function claimNotificationDeliveries(
  db: Db,
  options: { limit: number; leaseSeconds: number },
): Promise<DueNotification[]> {
  // RETURNING comes back in no particular order: sort the batch so receivers hear oldest first.
  return db.$queryRaw<DueNotification[]>`
    WITH taken AS (
      UPDATE notification_outbox o
      SET next_attempt_at = now() + make_interval(secs => ${options.leaseSeconds}::int), attempts = o.attempts + 1
      WHERE o.id IN (
        SELECT id FROM notification_outbox
        WHERE delivered_at IS NULL AND give_up_at IS NULL AND next_attempt_at <= now()
        ORDER BY next_attempt_at LIMIT ${options.limit} FOR UPDATE SKIP LOCKED)
      RETURNING o.id, o.producer, o.payload, o.attempts, o.created_at)
    SELECT id, producer, payload, attempts FROM taken ORDER BY created_at, id`;
}

export type DeliveryEndpoint = { id: string; url: string; signingSecret: string };

/** The producer's admin-configured endpoint, or null when it has none or it is disabled. */
export async function deliveryEndpointFor(db: Db, producer: string): Promise<DeliveryEndpoint | null> {
  const endpoint = await db.notificationEndpoint.findUnique({ where: { producer } });
  if (!endpoint || endpoint.disabledAt) return null;
  return { id: endpoint.id, url: endpoint.url, signingSecret: endpoint.signingSecret };
}
