import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { Db } from "@/lib/db/client";

const PREFIX = "whsec_";

/** Standard Webhooks signing secret: "whsec_" followed by the base64 of 32 random bytes. */
export function generateSigningSecret(): string {
  return `${PREFIX}${randomBytes(32).toString("base64")}`;
}

function keyOf(secret: string): Buffer {
  if (!secret.startsWith(PREFIX)) throw new Error("not a whsec_ signing secret");
  return Buffer.from(secret.slice(PREFIX.length), "base64");
}

/**
 * The `webhook-signature` header value of the Standard Webhooks scheme: HMAC-SHA256 over
 * "{id}.{timestamp}.{body}" keyed with the secret's decoded bytes, as "v1,<base64>".
 */
export function signWebhook(secret: string, message: { id: string; timestamp: number; body: string }): string {
  const mac = createHmac("sha256", keyOf(secret))
    .update(`${message.id}.${message.timestamp}.${message.body}`)
    .digest("base64");
  return `v1,${mac}`;
}

/** What a receiver does; here so tests can prove a stored secret signs verifiably. */
export function verifyWebhook(
  secret: string,
  message: { id: string; timestamp: number; body: string },
  header: string,
): boolean {
  const expected = Buffer.from(signWebhook(secret, message));
  return header.split(" ").some((candidate) => {
    const given = Buffer.from(candidate);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

/**
 * For the server-side notifier only (never a page or a route): where to send a producer's
 * notifications and the secret to sign them with, or null when none is configured or it is disabled.
 */
export async function findDeliverableEndpoint(db: Db, producer: string) {
  const endpoint = await db.notificationEndpoint.findUnique({
    where: { producer },
    select: { id: true, url: true, signingSecret: true, disabledAt: true },
  });
  if (!endpoint || endpoint.disabledAt) return null;
  return { id: endpoint.id, url: endpoint.url, signingSecret: endpoint.signingSecret };
}
