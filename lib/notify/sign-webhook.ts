import { createHmac, randomUUID } from "node:crypto";

/**
 * Standard Webhooks signing: `v1,` + base64(HMAC-SHA256(secret, `${id}.${timestamp}.${body}`)),
 * where the secret is the base64 part of `whsec_…`. Receivers verify with any Standard Webhooks library.
 */
export function signWebhook(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.startsWith("whsec_") ? secret.slice(6) : secret, "base64");
  const digest = createHmac("sha256", key).update(`${id}.${timestampSeconds}.${body}`).digest("base64");
  return `v1,${digest}`;
}

export function webhookHeaders(secret: string, id: string, body: string, now = new Date()): Record<string, string> {
  const timestamp = Math.floor(now.getTime() / 1000);
  return {
    "content-type": "application/json",
    "webhook-id": id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": signWebhook(secret, id, timestamp, body),
  };
}

export const newWebhookId = () => `msg_${randomUUID().replaceAll("-", "")}`;
