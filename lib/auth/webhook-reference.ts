import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * The attempt a producer's provider call was made for, as the product signed it into the webhook
 * URL: its operation and the attempt the permit was issued to (a replacement or a new episode is
 * another attempt, and a late webhook of the first must not be taken for it).
 */
export type WebhookReference = { producer: string; operationId: string; attemptId: string };

const LABEL = "provider-webhook-reference-v1";

function mac(secret: string, payload: string): Buffer {
  const key = createHmac("sha256", secret).update(LABEL).digest();
  return createHmac("sha256", key).update(payload).digest();
}

/**
 * `ref` for a provider webhook URL (DESIGN 8): the producer, operation and attempt, signed with a key
 * derived from the deployment's secret, so a webhook that comes back with it proves the job was
 * created by that producer's own call for that attempt. Nothing secret is in it; it cannot be forged.
 */
export function signWebhookReference(secret: string, reference: WebhookReference): string {
  const payload = Buffer.from(
    JSON.stringify([reference.producer, reference.operationId, reference.attemptId]),
  ).toString("base64url");
  return `${payload}.${mac(secret, payload).toString("base64url")}`;
}

/** The reference a `ref` names when its signature checks out; null for anything else. */
export function verifyWebhookReference(secret: string, token: string | null | undefined): WebhookReference | null {
  if (!token || token.length > 2000) return null;
  const [payload, signature, extra] = token.split(".");
  if (!payload || !signature || extra !== undefined) return null;
  const given = Buffer.from(signature, "base64url");
  const expected = mac(secret, payload);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    const value = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as unknown;
    if (!Array.isArray(value) || value.length !== 3) return null;
    const [producer, operationId, attemptId] = value;
    if (typeof producer !== "string" || typeof operationId !== "string" || typeof attemptId !== "string") return null;
    return { producer, operationId, attemptId };
  } catch {
    return null;
  }
}
