import { createFalAdapter, FAL_PLATFORM_BASE_URL, FAL_QUEUE_BASE_URL } from "./fal/adapter";
import { createLumaAdapter, LUMA_BASE_URL } from "./luma/adapter";
import { createReplicateAdapter, REPLICATE_BASE_URL } from "./replicate/adapter";
import { createRunwayAdapter, RUNWAY_BASE_URL } from "./runway/adapter";
import { type AdapterConfig, type ProviderAdapter, ProviderConfigError, type ProviderName } from "./types";
import { createVeoAdapter, VEO_BASE_URL } from "./veo/adapter";

export type ProviderAdapters = Record<ProviderName, ProviderAdapter>;
/** What a deployment has: in live mode only the providers whose keys are set. */
export type ConfiguredAdapters = Partial<ProviderAdapters>;
type Shared = Omit<AdapterConfig, "baseUrl" | "apiKey">;

export const DEFAULT_SIMULATOR_URL = "http://127.0.0.1:4010";
/** The variable that turns each provider on in live mode; any subset of them will do. */
export const LIVE_PROVIDER_KEYS = [
  "REPLICATE_API_TOKEN",
  "FAL_KEY",
  "RUNWAYML_API_SECRET",
  "GEMINI_API_KEY",
  "LUMAAI_API_KEY",
] as const;

/** Every adapter pointed at a running simulator, exactly as it would be at the real API. */
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
    runway: createRunwayAdapter({ ...shared, baseUrl: `${base}/runway`, apiKey: token }),
    veo: createVeoAdapter({ ...shared, baseUrl: `${base}/veo/v1beta`, apiKey: token }),
    luma: createLumaAdapter({ ...shared, baseUrl: `${base}/luma/dream-machine/v1`, apiKey: token }),
  };
}

/**
 * Adapters from configuration. PROVIDER_MODE is explicit (lib/env.ts resolves it: the simulator in
 * demo mode, required elsewhere). Live mode builds only the providers that have keys: a case for
 * another provider finds no adapter and parks with that evidence instead of failing every tick.
 */
export function providerAdaptersFromEnv(
  env: Record<string, string | undefined>,
  shared: Shared = {},
): ConfiguredAdapters {
  const mode = env.PROVIDER_MODE;
  if (mode === "simulator") {
    if (!env.SIMULATOR_URL) throw new ProviderConfigError("PROVIDER_MODE=simulator needs SIMULATOR_URL");
    return simulatorAdapters(env.SIMULATOR_URL, shared, env.SIMULATOR_TOKEN || undefined);
  }
  if (mode !== "live")
    throw new ProviderConfigError(`PROVIDER_MODE must be "simulator" or "live", not "${mode ?? ""}"`);
  const adapters: ConfiguredAdapters = {};
  if (env.REPLICATE_API_TOKEN) {
    adapters.replicate = createReplicateAdapter({
      ...shared,
      baseUrl: env.REPLICATE_BASE_URL || REPLICATE_BASE_URL,
      apiKey: env.REPLICATE_API_TOKEN,
    });
  }
  if (env.FAL_KEY) {
    adapters.fal = createFalAdapter({
      ...shared,
      baseUrl: env.FAL_QUEUE_BASE_URL || FAL_QUEUE_BASE_URL,
      platformBaseUrl: env.FAL_PLATFORM_BASE_URL || FAL_PLATFORM_BASE_URL,
      apiKey: env.FAL_KEY,
    });
  }
  if (env.RUNWAYML_API_SECRET) {
    adapters.runway = createRunwayAdapter({
      ...shared,
      baseUrl: env.RUNWAYML_BASE_URL || RUNWAY_BASE_URL,
      apiKey: env.RUNWAYML_API_SECRET,
    });
  }
  if (env.GEMINI_API_KEY) {
    adapters.veo = createVeoAdapter({
      ...shared,
      baseUrl: env.GEMINI_BASE_URL || VEO_BASE_URL,
      apiKey: env.GEMINI_API_KEY,
    });
  }
  if (env.LUMAAI_API_KEY) {
    adapters.luma = createLumaAdapter({
      ...shared,
      baseUrl: env.LUMAAI_BASE_URL || LUMA_BASE_URL,
      apiKey: env.LUMAAI_API_KEY,
    });
  }
  if (Object.keys(adapters).length === 0) {
    throw new ProviderConfigError(`live mode needs at least one of ${LIVE_PROVIDER_KEYS.join(", ")}`);
  }
  return adapters;
}
