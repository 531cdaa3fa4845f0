import type { Db } from "@/lib/db/client";
import { sleep } from "@/lib/providers/http/errors";
import { byProvider, type ConfiguredAdapters } from "@/lib/providers/registry";
import {
  type CallOptions,
  type ProviderAdapter,
  ProviderConfigError,
  type ProviderName,
  type RequestPace,
} from "@/lib/providers/types";
import { holdOffProvider, reservePaceSlot, seedProviderRate } from "@/lib/services/provider-pace/pace-slots";
import { PACED_PROVIDERS } from "@/lib/validation/provider-pace";

/**
 * Client-side pacing of one provider's API, shared by every worker process (decision 030). Requests
 * are spaced evenly at the rate the provider allows (each HTTP attempt reserves the next free slot),
 * so a burst of claimed actions arrives as a steady stream instead of overrunning the limit and each
 * request sleeping out its own 429. When the provider still answers 429 with Retry-After, every
 * later request waits until then, in every process, not only the one that was refused.
 */
export type ProviderPace = RequestPace;

/**
 * The pace kept in PostgreSQL (lib/services/provider-pace/pace-slots.ts): each request reserves the
 * next slot of the provider's one row, in whichever process it runs, and sleeps until it.
 */
export function sharedProviderPace(db: Db, provider: ProviderName, pause = sleep): ProviderPace {
  return {
    async take(signal) {
      const wait = await reservePaceSlot(db, provider);
      if (wait > 0) await pause(wait, signal);
    },
    holdOff: (ms) => holdOffProvider(db, provider, ms),
  };
}

/**
 * A pace that never fails the request it paces: when the database cannot be asked, the request goes
 * unpaced (a worker that cannot reach its database has bigger problems, and a provider call that
 * throws instead of answering `unknown` would be worse).
 */
function tolerant(pace: ProviderPace): ProviderPace {
  return {
    take: (signal) => pace.take(signal).catch(() => {}),
    holdOff: (ms) => pace.holdOff(ms).catch(() => {}),
  };
}

/**
 * The adapter with every API call paced: each HTTP attempt, retries and list pages included, takes
 * a slot, and each Retry-After is shared (downloads come from the delivery CDN and are not paced).
 */
export function pacedAdapter(adapter: ProviderAdapter, pace: ProviderPace): ProviderAdapter {
  const { listJobs, findByClientReference, jobCosts, jobMetrics } = adapter;
  const shared = tolerant(pace);
  const withPace = (options: CallOptions | undefined): CallOptions => ({ ...options, pace: shared });
  return {
    provider: adapter.provider,
    capabilities: adapter.capabilities,
    downloadOutput: adapter.downloadOutput.bind(adapter),
    getJob: (ref, options) => adapter.getJob(ref, withPace(options)),
    ...(listJobs ? { listJobs: (window, options) => listJobs.call(adapter, window, withPace(options)) } : {}),
    ...(findByClientReference
      ? {
          findByClientReference: (reference, options) =>
            findByClientReference.call(adapter, reference, withPace(options)),
        }
      : {}),
    ...(jobCosts ? { jobCosts: (ids, options) => jobCosts.call(adapter, ids, withPace(options)) } : {}),
    ...(jobMetrics ? { jobMetrics: (ref, options) => jobMetrics.call(adapter, ref, withPace(options)) } : {}),
  };
}

export function pacedAdapters(
  adapters: ConfiguredAdapters,
  paces: Partial<Record<ProviderName, ProviderPace>>,
): ConfiguredAdapters {
  const paced: ConfiguredAdapters = {};
  for (const name of PACED_PROVIDERS) {
    const adapter = adapters[name];
    const pace = paces[name];
    if (adapter) paced[name] = pace ? pacedAdapter(adapter, pace) : adapter;
  }
  return paced;
}

/**
 * Every provider's pace, shared through `db`. Each provider's pace variable (its module's
 * `paceEnvVar`, e.g. REPLICATE_REQUESTS_PER_SECOND) gives the rate the provider allows the whole
 * deployment (every worker process together): it is stored for a provider that has no rate in the
 * database yet; after that the database's rate, set by an admin, is the one every process uses.
 * Unset: unpaced until an admin sets a rate, with Retry-After still honoured by every process.
 */
export function providerPacesFromEnv(
  db: Db,
  raw: Record<string, string | undefined>,
): Record<ProviderName, ProviderPace> {
  const paces = {} as Record<ProviderName, ProviderPace>;
  for (const name of PACED_PROVIDERS) {
    const rate = requestsPerSecondFromEnv(raw, name);
    const pace = sharedProviderPace(db, name);
    paces[name] = rate === undefined ? pace : seededFirst(pace, () => seedProviderRate(db, name, rate));
  }
  return paces;
}

const PROVIDER_PACE_ENV_VARS = byProvider((provider) => provider.paceEnvVar);

export function requestsPerSecondFromEnv(
  raw: Record<string, string | undefined>,
  provider: ProviderName,
): number | undefined {
  const key = PROVIDER_PACE_ENV_VARS[provider];
  const value = raw[key];
  if (value === undefined || value === "") return undefined;
  const rate = Number(value);
  if (!(rate > 0) || !Number.isFinite(rate)) throw new ProviderConfigError(`${key} must be a positive number`);
  return rate;
}

/** Runs `seed` once, before this process's first request (starting never waits on the database). */
function seededFirst(pace: ProviderPace, seed: () => Promise<void>): ProviderPace {
  let seeded: Promise<void> | undefined;
  const once = () => {
    seeded ??= seed().catch((error: unknown) => {
      seeded = undefined;
      throw error;
    });
    return seeded;
  };
  return {
    take: async (signal) => {
      await once();
      await pace.take(signal);
    },
    holdOff: async (ms) => {
      await once();
      await pace.holdOff(ms);
    },
  };
}
