import type { PrismaClient } from "@/lib/db/client";
import { type VaultPolicy, vaultPolicyOf } from "@/lib/domain/vault";
import type { Env } from "@/lib/env";
import { type WebhookAllowList, webhookAllowListFromEnv } from "@/lib/notify/webhook-allow-list";
import type { WebhookLookup } from "@/lib/notify/webhook-target";
import { type ConfiguredAdapters, DEFAULT_SIMULATOR_URL, providerAdaptersFromEnv } from "@/lib/providers";
import { assetStorageOf } from "@/lib/storage/asset-storage";
import type { AssetStorage } from "@/lib/storage/types";
import { type ActionBounds, actionBoundsFrom } from "./action-bounds";
import { pacedAdapters, providerPacesFromEnv } from "./provider-pace";

/** Everything a tick needs, built once per process and injectable in tests. */
export type WorkerContext = {
  db: PrismaClient;
  /** In live mode only the providers that have keys; a case for another one parks with that evidence. */
  adapters: ConfiguredAdapters;
  storage: AssetStorage;
  budgetMs: number;
  leaseSeconds: number;
  pollBaseSeconds: number;
  pollMaxSeconds: number;
  concurrency: number;
  /** Each provider's bound on one approved action (DESIGN rule 19); absent, the defaults for `pollBaseSeconds`. */
  actionBounds?: ActionBounds;
  /** The worker's clock for the bounds' time (default: the system's); a test moves it instead of sleeping. */
  now?: () => Date;
  /** Claims that may end without finishing before the action is parked as poison (default 5). */
  poisonClaims?: number;
  maxDownloadBytes: number;
  /** The output vault's policy (decision 075); absent, the documented defaults. */
  vault?: VaultPolicy;
  random: () => number;
  /** Where webhooks may go besides public https addresses (WEBHOOK_ALLOWED_HOSTS); none when absent. */
  webhookAllowList?: WebhookAllowList;
  /** Resolves endpoint host names (default: the system resolver); a test can make a name resolve anywhere. */
  webhookLookup?: WebhookLookup;
  /** The console's address, for the links in alert messages (AUTH_URL). */
  consoleUrl?: string;
  /** An in-process endpoint instead of the network (the simulation); the address check still runs first. */
  fetchImpl?: typeof fetch;
};

export function workerContextFromEnv(
  db: PrismaClient,
  env: Env,
  raw: Record<string, string | undefined>,
): WorkerContext {
  // The mode and the simulator come from the parsed environment: explicit outside demo mode.
  const providers = {
    ...raw,
    PROVIDER_MODE: env.providerMode,
    SIMULATOR_URL: env.SIMULATOR_URL ?? (env.demo ? DEFAULT_SIMULATOR_URL : undefined),
    SIMULATOR_TOKEN: env.SIMULATOR_TOKEN,
  };
  return {
    db,
    adapters: pacedAdapters(providerAdaptersFromEnv(providers), providerPacesFromEnv(db, raw)),
    storage: assetStorageOf(env),
    budgetMs: env.WORKER_TICK_BUDGET_MS,
    leaseSeconds: env.WORKER_LEASE_SECONDS,
    pollBaseSeconds: env.WORKER_POLL_BASE_SECONDS,
    actionBounds: actionBoundsFrom(env, env.WORKER_POLL_BASE_SECONDS),
    pollMaxSeconds: env.WORKER_POLL_MAX_SECONDS,
    concurrency: env.WORKER_CONCURRENCY,
    poisonClaims: env.WORKER_POISON_CLAIMS,
    maxDownloadBytes: env.MAX_DOWNLOAD_BYTES,
    vault: vaultPolicyOf(env),
    random: Math.random,
    webhookAllowList: webhookAllowListFromEnv(env),
    consoleUrl: env.authUrl,
  };
}
