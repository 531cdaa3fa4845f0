import type { KeyObject } from "node:crypto";
import { processShared } from "../process-shared";
import { falKeysFromJwks } from "./fal/webhook";
import { retryPolicy } from "./http/backoff";
import { getWithRetry } from "./http/get-with-retry";
import { isObject, nonEmptyText } from "./json";

/** fal asks not to keep its JWKS past a day; an hour keeps rotations quick to reach us. */
const JWKS_MAX_AGE_MS = 60 * 60 * 1000;
/** A flood of webhooks signed by an unknown key refetches the JWKS at most this often. */
const JWKS_MIN_REFETCH_MS = 10_000;

type Cached<T> = { value: T; at: number } | null;
const cache = () =>
  processShared("provider-webhook-keys", () => ({
    fal: new Map<string, Cached<KeyObject[]>>(),
    replicate: new Map<string, string>(),
  }));

const get = (url: string, headers: Record<string, string> = {}) =>
  getWithRetry({ url, headers, policy: retryPolicy({ maxAttempts: 2 }), random: Math.random });

/**
 * fal's signing keys from its JWKS, cached for an hour; `refresh` fetches again (a key this cache
 * does not have may be a rotation) unless that was done within the last ten seconds.
 */
export async function falWebhookKeys(
  url: string,
  options: { refresh?: boolean; now?: number } = {},
): Promise<KeyObject[]> {
  const now = options.now ?? Date.now();
  const store = cache().fal;
  const cached = store.get(url) ?? null;
  const age = cached ? now - cached.at : Number.POSITIVE_INFINITY;
  if (cached && age < JWKS_MAX_AGE_MS && (!options.refresh || age < JWKS_MIN_REFETCH_MS)) return cached.value;
  const answer = await get(url);
  if (answer.kind !== "response" || answer.status !== 200) return cached?.value ?? [];
  const keys = falKeysFromJwks(answer.body);
  store.set(url, { value: keys, at: now });
  return keys;
}

/**
 * Replicate's webhook signing secret: configured, or read once from its API with the account's
 * token (`GET /v1/webhooks/default/secret`, docs: "Verify webhooks") and kept for the process.
 */
export async function replicateWebhookSecret(config: {
  secret?: string;
  apiToken?: string;
  baseUrl: string;
}): Promise<string | null> {
  if (config.secret) return config.secret;
  if (!config.apiToken) return null;
  const store = cache().replicate;
  const known = store.get(config.baseUrl);
  if (known) return known;
  const answer = await get(`${config.baseUrl}/v1/webhooks/default/secret`, {
    Authorization: `Bearer ${config.apiToken}`,
  });
  if (answer.kind !== "response" || answer.status !== 200 || !isObject(answer.body)) return null;
  const key = nonEmptyText(answer.body.key);
  if (!key?.startsWith("whsec_")) return null;
  store.set(config.baseUrl, key);
  return key;
}
