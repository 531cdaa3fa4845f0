import { createFalAdapter, FAL_PLATFORM_BASE_URL, FAL_QUEUE_BASE_URL } from "./fal/adapter";
import { createReplicateAdapter, REPLICATE_BASE_URL } from "./replicate/adapter";
import { type AdapterConfig, type ProviderAdapter, ProviderConfigError, type ProviderName } from "./types";

export type ProviderAdapters = Record<ProviderName, ProviderAdapter>;
type Shared = Omit<AdapterConfig, "baseUrl" | "apiKey">;

export const DEFAULT_SIMULATOR_URL = "http://127.0.0.1:4010";

/** Both adapters pointed at a running simulator, exactly as they would be at the real APIs. */
export function simulatorAdapters(simulatorUrl: string, shared: Shared = {}, token?: string): ProviderAdapters {
  const base = simulatorUrl.replace(/\/+$/, "");
  return {
    replicate: createReplicateAdapter({ ...shared, baseUrl: `${base}/replicate`, apiKey: token }),
    fal: createFalAdapter({
      ...shared,
      baseUrl: `${base}/fal`,
      platformBaseUrl: `${base}/fal-platform/v1`,
      apiKey: token,
    }),
  };
}

/**
 * Adapters from configuration. The simulator is the default (demo and tests); PROVIDER_MODE=live
 * targets the public APIs and then requires their keys.
 */
export function providerAdaptersFromEnv(
  env: Record<string, string | undefined>,
  shared: Shared = {},
): ProviderAdapters {
  const mode = env.PROVIDER_MODE ?? "simulator";
  if (mode === "simulator") {
    return simulatorAdapters(env.SIMULATOR_URL || DEFAULT_SIMULATOR_URL, shared, env.SIMULATOR_TOKEN || undefined);
  }
  if (mode !== "live") throw new ProviderConfigError(`PROVIDER_MODE must be "simulator" or "live", not "${mode}"`);
  const replicateKey = env.REPLICATE_API_TOKEN;
  const falKey = env.FAL_KEY;
  if (!replicateKey || !falKey) throw new ProviderConfigError("live mode needs REPLICATE_API_TOKEN and FAL_KEY");
  return {
    replicate: createReplicateAdapter({
      ...shared,
      baseUrl: env.REPLICATE_BASE_URL || REPLICATE_BASE_URL,
      apiKey: replicateKey,
    }),
    fal: createFalAdapter({
      ...shared,
      baseUrl: env.FAL_QUEUE_BASE_URL || FAL_QUEUE_BASE_URL,
      platformBaseUrl: env.FAL_PLATFORM_BASE_URL || FAL_PLATFORM_BASE_URL,
      apiKey: falKey,
    }),
  };
}
