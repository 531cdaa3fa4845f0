import { createHash, createPublicKey, type KeyObject, verify } from "node:crypto";
import { isObject, nonEmptyText } from "../json";
import type { VerifiedWebhook } from "../types";

/** Where fal publishes its webhook signing keys (docs: "Webhooks", checked 2026-12-02). */
export const FAL_JWKS_URL = "https://rest.fal.ai/.well-known/jwks.json";
/** fal's documented window for `X-Fal-Webhook-Timestamp`, either way. */
export const FAL_TIMESTAMP_TOLERANCE_SECONDS = 300;

/** The Ed25519 public keys of a JWKS document (each key's `x`, base64url); anything else is skipped. */
export function falKeysFromJwks(body: unknown): KeyObject[] {
  if (!isObject(body) || !Array.isArray(body.keys)) return [];
  return body.keys.flatMap((key) => {
    const x = isObject(key) ? nonEmptyText(key.x) : undefined;
    if (!x) return [];
    try {
      return [createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x }, format: "jwk" })];
    } catch {
      return [];
    }
  });
}

/** The bytes fal signs: request id, user id, timestamp and the body's SHA-256 (hex), one per line. */
export function falSignedMessage(requestId: string, userId: string, timestamp: string, rawBody: string): Buffer {
  const digest = createHash("sha256").update(rawBody, "utf8").digest("hex");
  return Buffer.from(`${requestId}\n${userId}\n${timestamp}\n${digest}`, "utf8");
}

/** The four signature headers of a fal webhook, well-formed and within the time window. */
export type FalSignedHeaders = { requestId: string; userId: string; timestamp: string; signature: string };

export function falSignedHeaders(
  header: (name: string) => string | null | undefined,
  now = new Date(),
): FalSignedHeaders | null {
  const requestId = header("x-fal-webhook-request-id");
  const userId = header("x-fal-webhook-user-id");
  const timestamp = header("x-fal-webhook-timestamp");
  const signature = header("x-fal-webhook-signature");
  if (!requestId || !userId || !timestamp || !signature) return null;
  if (!/^\d{1,12}$/.test(timestamp) || !/^[0-9a-f]{128}$/i.test(signature)) return null;
  if (Math.abs(now.getTime() / 1000 - Number(timestamp)) > FAL_TIMESTAMP_TOLERANCE_SECONDS) return null;
  return { requestId, userId, timestamp, signature };
}

/**
 * fal signs queue webhooks with Ed25519 (docs: "Webhooks"): a hex signature over the request id,
 * user id, timestamp and the body's digest that any key of the JWKS verifies. Null when none does
 * (the caller may fetch the JWKS again once: a rotated key).
 */
export function verifyFalSignature(
  keys: readonly KeyObject[],
  rawBody: string,
  signed: FalSignedHeaders,
): VerifiedWebhook | null {
  const message = falSignedMessage(signed.requestId, signed.userId, signed.timestamp, rawBody);
  const bytes = Buffer.from(signed.signature, "hex");
  const matched = keys.some((key) => {
    try {
      return verify(null, message, key, bytes);
    } catch {
      return false;
    }
  });
  if (!matched) return null;
  return {
    webhookId: `${signed.requestId}@${signed.timestamp}`,
    signedAt: new Date(Number(signed.timestamp) * 1000),
    accountId: signed.userId,
  };
}
