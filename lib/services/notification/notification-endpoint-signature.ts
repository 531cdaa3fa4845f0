import { randomBytes, timingSafeEqual } from "node:crypto";
import type { Db } from "@/lib/db/client";
import { webhookHeaders } from "@/lib/notify/sign-webhook";

const PREFIX = "whsec_";

/** Standard Webhooks signing secret: "whsec_" followed by the base64 of 32 random bytes. */
export function generateSigningSecret(): string {
  return `${PREFIX}${randomBytes(32).toString("base64")}`;
}

/**
 * The `webhook-signature` header value of the Standard Webhooks scheme for one message, from the
 * same signer the notifier uses (lib/notify/sign-webhook.ts).
 */
export function signWebhook(secret: string, message: { id: string; timestamp: number; body: string }): string {
  if (!secret.startsWith(PREFIX)) throw new Error("not a whsec_ signing secret");
  return webhookHeaders(secret, message.id, message.body, new Date(message.timestamp * 1000))["webhook-signature"];
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
