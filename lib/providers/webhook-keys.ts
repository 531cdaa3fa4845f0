import type { KeyObject } from "node:crypto";
import { processShared } from "../process-shared";
import { falKeysFromJwks } from "./fal/webhook";
import { retryPolicy } from "./http/backoff";
import { getWithRetry } from "./http/get-with-retry";
import { isObject, nonEmptyText } from "./json";

/** fal asks not to keep its JWKS past a day; an hour keeps rotations quick to reach us. */
const JWKS_MAX_AGE_MS = 60 * 60 * 1000;
/**
 * However many webhooks arrive (signed by an unknown key, or while the source is down), each key
 * source is asked at most once in this interval: a flood of unauthenticated POSTs cannot turn into
 * a flood of outbound fetches carrying the account's token.
 */
export const KEY_REFETCH_INTERVAL_MS = 10_000;

/** What one key source last gave, when it was last asked, and the fetch under way (single flight). */
type Slot<T> = { value: T | null; fetchedAt: number; askedAt: number; inflight: Promise<T | null> | null };

const cache = () =>
  processShared("provider-webhook-keys", () => ({
    fal: new Map<string, Slot<KeyObject[]>>(),
    replicate: new Map<string, Slot<string>>(),
  }));

// One request per ask: a source that failed is asked again after the interval, not at once.
const get = (url: string, headers: Record<string, string> = {}) =>
  getWithRetry({ url, headers, policy: retryPolicy({ maxAttempts: 1 }), random: Math.random });

/**
 * The one way a key source is read: a fresh value is returned as it is; otherwise at most one
 * fetch per interval, shared by every caller waiting meanwhile; a failed fetch keeps what was
 * known before (null if nothing) and is not repeated until the interval has passed.
 */
async function readKeys<T>(
  store: Map<string, Slot<T>>,
  key: string,
  fresh: (slot: Slot<T>) => boolean,
  now: number,
  fetchValue: () => Promise<T | null>,
): Promise<T | null> {
  const slot = store.get(key) ?? { value: null, fetchedAt: 0, askedAt: Number.NEGATIVE_INFINITY, inflight: null };
  store.set(key, slot);
  if (slot.value !== null && fresh(slot)) return slot.value;
  if (slot.inflight) return slot.inflight;
  if (now - slot.askedAt < KEY_REFETCH_INTERVAL_MS) return slot.value;
  slot.askedAt = now;
  slot.inflight = fetchValue()
    .catch(() => null)
    .then((value) => {
      if (value !== null) Object.assign(slot, { value, fetchedAt: now });
      return slot.value;
    })
    .finally(() => {
      slot.inflight = null;
    });
  return slot.inflight;
}

/**
 * fal's signing keys from its JWKS, cached for an hour; `refresh` asks again (a key this cache does
 * not have may be a rotation), at most once per interval whatever arrives.
 */
export async function falWebhookKeys(
  url: string,
  options: { refresh?: boolean; now?: number } = {},
): Promise<KeyObject[]> {
  const now = options.now ?? Date.now();
  const fresh = (slot: Slot<KeyObject[]>) => now - slot.fetchedAt < JWKS_MAX_AGE_MS && !options.refresh;
  const keys = await readKeys(cache().fal, url, fresh, now, async () => {
    const answer = await get(url);
    return answer.kind === "response" && answer.status === 200 ? falKeysFromJwks(answer.body) : null;
  });
  return keys ?? [];
}

/**
 * Replicate's webhook signing secret: configured, or read with the account's token
 * (`GET /v1/webhooks/default/secret`, docs: "Verify webhooks") and kept for the process; a failed
 * read is not tried again within the interval. `refresh` asks again (a signature the kept secret
 * does not verify may follow a rotation at Replicate), at most once per interval whatever arrives.
 */
export async function replicateWebhookSecret(config: {
  secret?: string;
  apiToken?: string;
  baseUrl: string;
  now?: number;
  refresh?: boolean;
}): Promise<string | null> {
  if (config.secret) return config.secret;
  const token = config.apiToken;
  if (!token) return null;
  return readKeys(
    cache().replicate,
    `${config.baseUrl}\n${token}`,
    () => !config.refresh,
    config.now ?? Date.now(),
    async () => {
      const answer = await get(`${config.baseUrl}/v1/webhooks/default/secret`, { Authorization: `Bearer ${token}` });
      if (answer.kind !== "response" || answer.status !== 200 || !isObject(answer.body)) return null;
      const key = nonEmptyText(answer.body.key);
      return key?.startsWith("whsec_") ? key : null;
    },
  );
}
