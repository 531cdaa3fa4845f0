import { Webhook } from "standardwebhooks";
import { processShared } from "../../process-shared";
import type { VerifiedWebhook } from "../types";

/**
 * The verifier of the secret last used, kept so a burst does not decode the key per request. Only
 * the latest secret is kept: a rotated one is dropped as soon as the new one is used.
 */
const verifiers = () =>
  processShared("replicate-webhook-verifier", () => ({ secret: "", verifier: null as Webhook | null }));

function verifierFor(secret: string): Webhook {
  const kept = verifiers();
  if (kept.verifier && kept.secret === secret) return kept.verifier;
  const verifier = new Webhook(secret);
  Object.assign(kept, { secret, verifier });
  return verifier;
}

/**
 * Replicate signs webhooks the Standard Webhooks way (docs: "Verify webhooks"): HMAC-SHA256 of
 * `${webhook-id}.${webhook-timestamp}.${raw body}` with the account's `whsec_` secret. The library
 * also refuses a timestamp more than five minutes from now, which Replicate leaves to the receiver.
 * Null for anything that does not verify: a missing header, a bad signature, an old or future time.
 */
export function verifyReplicateWebhook(
  secret: string,
  rawBody: string,
  header: (name: string) => string | null | undefined,
): VerifiedWebhook | null {
  const headers = {
    "webhook-id": header("webhook-id") ?? "",
    "webhook-timestamp": header("webhook-timestamp") ?? "",
    "webhook-signature": header("webhook-signature") ?? "",
  };
  try {
    verifierFor(secret).verify(rawBody, headers, { jsonParse: false });
  } catch {
    return null;
  }
  return { webhookId: headers["webhook-id"], signedAt: new Date(Number(headers["webhook-timestamp"]) * 1000) };
}
