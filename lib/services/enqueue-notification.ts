import type { Prisma } from "@/lib/db/client";
import { newWebhookId } from "@/lib/notify/sign-webhook";

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
  const id = newWebhookId();
  await tx.notificationOutbox.create({
    data: {
      id,
      producer: input.producer,
      caseId: input.caseId,
      eventType: input.type,
      payload: { type: input.type, timestamp: new Date().toISOString(), data: input.data },
    },
  });
  return id;
}
