import { randomUUID } from "node:crypto";
import { Webhook } from "standardwebhooks";

export type WebhookHeaders = {
  "content-type": "application/json";
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
};

/**
 * Standard Webhooks headers, signed by the specification's own library: `v1,` + base64 of
 * HMAC-SHA256 over `${id}.${timestamp}.${body}`, keyed with the base64 part of `whsec_…`.
 * A secret that is empty or not base64 throws rather than signing with a key nobody holds.
 */
export function webhookHeaders(secret: string, id: string, body: string, now = new Date()): WebhookHeaders {
  return {
    "content-type": "application/json",
    "webhook-id": id,
    "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
    "webhook-signature": new Webhook(secret).sign(id, now, body),
  };
}

export const newWebhookId = () => `msg_${randomUUID().replaceAll("-", "")}`;
