import { sleep } from "@/lib/providers/http/errors";
import type { ConfiguredAdapters } from "@/lib/providers/registry";
import {
  type CallOptions,
  type JobStatus,
  type ProviderAdapter,
  ProviderConfigError,
  type ProviderName,
} from "@/lib/providers/types";

/**
 * Client-side pacing of one provider's API, shared by every tick a process runs. Requests are
 * spaced evenly at the rate the provider allows (each caller reserves the next free slot), so a
 * burst of claimed actions arrives as a steady stream instead of overrunning the limit and each
 * request sleeping out its own 429. When the provider still answers 429 with Retry-After, every
 * later request waits until then, not only the one that was refused.
 */
export type ProviderPace = {
  readonly requestsPerSecond: number;
  /** Resolves when this request may go (early, unpaced, if the caller gives up meanwhile). */
  take(signal?: AbortSignal): Promise<void>;
  /** The provider asked to wait `ms`: nothing leaves before then. */
  holdOff(ms: number): void;
};

type Clock = { now: () => number; sleep: (ms: number, signal?: AbortSignal) => Promise<void> };
const realClock: Clock = { now: () => performance.now(), sleep };

export function providerPace(requestsPerSecond: number, clock: Clock = realClock): ProviderPace {
  if (!(requestsPerSecond > 0) || !Number.isFinite(requestsPerSecond)) {
    throw new RangeError("requests per second must be a positive number");
  }
  const interval = 1000 / requestsPerSecond;
  let nextSlot = 0;
  return {
    requestsPerSecond,
    async take(signal) {
      const now = clock.now();
      const slot = Math.max(now, nextSlot);
      nextSlot = slot + interval;
      if (slot > now) await clock.sleep(slot - now, signal);
    },
    holdOff(ms) {
      nextSlot = Math.max(nextSlot, clock.now() + ms);
    },
  };
}

/** The provider's answer asked us to slow down: throttled, with a Retry-After to honour. */
function retryAfterOf(status: JobStatus): number | undefined {
  return status.kind === "unknown" && status.retryAfterMs !== undefined ? status.retryAfterMs : undefined;
}

/** The adapter with every API call paced (downloads come from the delivery CDN and are not). */
export function pacedAdapter(adapter: ProviderAdapter, pace: ProviderPace): ProviderAdapter {
  const { listJobs, findByClientReference } = adapter;
  const paced = async <T>(options: CallOptions | undefined, call: () => Promise<T>): Promise<T> => {
    await pace.take(options?.signal);
    return call();
  };
  return {
    provider: adapter.provider,
    capabilities: adapter.capabilities,
    downloadOutput: adapter.downloadOutput.bind(adapter),
    async getJob(ref, options) {
      const status = await paced(options, () => adapter.getJob(ref, options));
      const retryAfter = retryAfterOf(status);
      if (retryAfter !== undefined) pace.holdOff(retryAfter);
      return status;
    },
    ...(listJobs
      ? { listJobs: (window, options) => paced(options, () => listJobs.call(adapter, window, options)) }
      : {}),
    ...(findByClientReference
      ? {
          findByClientReference: (reference, options) =>
            paced(options, () => findByClientReference.call(adapter, reference, options)),
        }
      : {}),
  };
}

export function pacedAdapters(
  adapters: ConfiguredAdapters,
  paces: Partial<Record<ProviderName, ProviderPace>>,
): ConfiguredAdapters {
  const paced: ConfiguredAdapters = {};
  for (const name of ["replicate", "fal"] as const) {
    const adapter = adapters[name];
    const pace = paces[name];
    if (adapter) paced[name] = pace ? pacedAdapter(adapter, pace) : adapter;
  }
  return paced;
}

/**
 * REPLICATE_REQUESTS_PER_SECOND / FAL_REQUESTS_PER_SECOND: the API rate each provider allows this
 * process (its documented limit, divided by the number of app instances sharing the key). Unset
 * means unpaced: every request goes at once and a 429 is waited out by the request it hit.
 */
export function providerPacesFromEnv(
  raw: Record<string, string | undefined>,
): Partial<Record<ProviderName, ProviderPace>> {
  const paces: Partial<Record<ProviderName, ProviderPace>> = {};
  for (const name of ["replicate", "fal"] as const) {
    const key = `${name.toUpperCase()}_REQUESTS_PER_SECOND`;
    const value = raw[key];
    if (value === undefined || value === "") continue;
    const rate = Number(value);
    if (!(rate > 0) || !Number.isFinite(rate)) throw new ProviderConfigError(`${key} must be a positive number`);
    paces[name] = providerPace(rate);
  }
  return paces;
}
