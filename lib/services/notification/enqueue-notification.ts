import type { Prisma } from "@/lib/db/client";
import { newWebhookId } from "@/lib/notify/sign-webhook";

export type WebhookMessage = { id: string; payload: Prisma.InputJsonObject };

/**
 * The one shape of an outbox message: an id the receiver deduplicates on, and the envelope
 * `{ type, timestamp, data }` it verifies. Both writers of the outbox build their row from this
 * (`enqueueNotification` below, and the single statement that publishes a delivery).
 */
export function webhookMessage(type: string, data: Prisma.InputJsonObject): WebhookMessage {
  return { id: newWebhookId(), payload: { type, timestamp: new Date().toISOString(), data } };
}

/**
 * Writes a webhook to the outbox inside the caller's transaction, so the message exists exactly
 * when the change it announces does. Only producers with an admin-configured endpoint get one.
 */
export async function enqueueNotification(
  tx: Prisma.TransactionClient,
  input: { producer: string; caseId: string; type: string; data: Prisma.InputJsonObject },
): Promise<string | null> {
  const endpoint = await tx.notificationEndpoint.findUnique({ where: { producer: input.producer } });
  if (!endpoint || endpoint.disabledAt) return null;
  const { id, payload } = webhookMessage(input.type, input.data);
  await tx.notificationOutbox.create({
    data: { id, producer: input.producer, caseId: input.caseId, eventType: input.type, payload },
  });
  return id;
}
