import { verifyWebhookReference } from "@/lib/auth/webhook-reference";
import { db } from "@/lib/db/client";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { FAL_JWKS_URL, falSignedHeaders, verifyFalSignature } from "@/lib/providers/fal/webhook";
import { REPLICATE_BASE_URL } from "@/lib/providers/replicate/adapter";
import { verifyReplicateWebhook } from "@/lib/providers/replicate/webhook";
import { falWebhookKeys, replicateWebhookSecret } from "@/lib/providers/webhook-keys";
import type { ProviderActor } from "@/lib/services/access/actor";
import { isOwnProviderAccount } from "@/lib/services/provider-webhook/provider-account";
import type { ApiRequest } from "./api-request";

const refused = () => new AppError("unauthenticated", "The webhook's signature did not verify.");

/**
 * A webhook the provider really signed, for another account than this deployment's. It is refused
 * like any unverified one, but never counts against its address (webhook-throttle.ts): that address
 * is the provider's, and this deployment's own webhooks come from it too.
 */
export class OtherAccountRefused extends AppError {
  constructor(
    provider: string,
    message = `The webhook comes from a ${provider} account that is not this deployment's.`,
  ) {
    super("unauthenticated", message);
  }
}

/** Replicate's Standard Webhooks signature over the raw body, with the account's secret. */
export async function authenticateReplicate(req: ApiRequest, rawBody: string): Promise<ProviderActor> {
  const config = env();
  const source = {
    secret: config.REPLICATE_WEBHOOK_SECRET,
    apiToken: config.REPLICATE_API_TOKEN,
    baseUrl: config.REPLICATE_BASE_URL ?? REPLICATE_BASE_URL,
  };
  const secret = await replicateWebhookSecret(source);
  if (!secret) throw new AppError("unauthenticated", "Replicate webhooks are not configured in this deployment.");
  const header = (name: string) => req.header(name);
  // A secret read from Replicate is kept for the process; one that no longer verifies may have been
  // rotated there, so it is read again (at most once per interval, webhook-keys.ts) before refusing.
  let verified = verifyReplicateWebhook(secret, rawBody, header);
  if (!verified && !source.secret && hasSignatureHeaders(header)) {
    const fresh = await replicateWebhookSecret({ ...source, refresh: true });
    if (fresh && fresh !== secret) verified = verifyReplicateWebhook(fresh, rawBody, header);
  }
  if (!verified) throw refused();
  return {
    kind: "provider",
    provider: "replicate",
    webhookId: verified.webhookId,
    signedAt: verified.signedAt.toISOString(),
  };
}

/** Whether the request carries the Standard Webhooks headers at all: one that does not never costs a secret read. */
function hasSignatureHeaders(header: (name: string) => string | null | undefined): boolean {
  return Boolean(header("webhook-id") && header("webhook-timestamp") && header("webhook-signature"));
}

/** fal's Ed25519 signature, by a key of its JWKS (fetched again once when no cached key matches). */
export async function authenticateFal(req: ApiRequest, rawBody: string): Promise<ProviderActor> {
  // Headers and time first: a request that cannot verify never costs a key fetch.
  const signed = falSignedHeaders((name) => req.header(name));
  if (!signed) throw refused();
  const url = env().FAL_JWKS_URL ?? FAL_JWKS_URL;
  const verified =
    verifyFalSignature(await falWebhookKeys(url), rawBody, signed) ??
    verifyFalSignature(await falWebhookKeys(url, { refresh: true }), rawBody, signed);
  if (!verified) throw refused();
  // fal's keys sign every fal customer's webhooks: the signature alone does not make one ours.
  const config = env();
  // Unconfigured, no account is this deployment's: refused like any other account, which fal's own
  // signature proves is not an attack, so fal's addresses are not throttled for it.
  if (config.providerMode === "live" && !config.FAL_USER_ID) {
    throw new OtherAccountRefused("fal", "fal webhooks need FAL_USER_ID (this deployment's fal account) in live mode.");
  }
  const ref = new URL(req.url, "http://localhost").searchParams.get("ref");
  const own = await isOwnProviderAccount(db(), {
    provider: "fal",
    accountId: signed.userId,
    providerJobId: signed.requestId,
    referenced: config.AUTH_SECRET ? verifyWebhookReference(config.AUTH_SECRET, ref) !== null : false,
    configured: config.FAL_USER_ID,
    // Against the real fal, anyone's account could be the first a producer shows us (its own key
    // with our webhook URL): there the account is configured, never learned.
    mayLearn: config.providerMode === "simulator",
  });
  if (!own) throw new OtherAccountRefused("fal");
  return {
    kind: "provider",
    provider: "fal",
    webhookId: verified.webhookId,
    signedAt: verified.signedAt.toISOString(),
  };
}
