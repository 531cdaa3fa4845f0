import { falProvider } from "./fal";
import { lumaProvider } from "./luma";
import type { EnvSource, SharedAdapterConfig } from "./module";
import { replicateProvider } from "./replicate";
import { runwayProvider } from "./runway";
import { type ProviderAdapter, ProviderConfigError, type ProviderName } from "./types";
import { veoProvider } from "./veo";

/**
 * Every provider the application reads, in the order tables and messages list them. Adding one is
 * its folder under lib/providers and one entry here (docs/providers.md, "Adding a provider").
 */
export const PROVIDERS = [replicateProvider, falProvider, runwayProvider, veoProvider, lumaProvider] as const;

export type KnownProvider = (typeof PROVIDERS)[number];

/** Provider names as a tuple, for zod enums. */
export const PROVIDER_NAMES = PROVIDERS.map((provider) => provider.name) as unknown as readonly [
  ProviderName,
  ...ProviderName[],
];

export type ProviderAdapters = Record<ProviderName, ProviderAdapter>;
/** What a deployment has: in live mode only the providers whose keys are set. */
export type ConfiguredAdapters = Partial<ProviderAdapters>;

export const DEFAULT_SIMULATOR_URL = "http://127.0.0.1:4010";
/** The variable that turns each provider on in live mode; any subset of them will do. */
export const LIVE_PROVIDER_KEYS: readonly string[] = PROVIDERS.map((provider) => provider.liveKey);

/** Each provider's default "no job exists" settling period, until an admin stores the provider's own value. */
export const DEFAULT_NO_JOB_SETTLING_SECONDS = byProvider((provider) => provider.capabilities.noJobSettlingSeconds);

/** The settings that override a provider's action bound: `<NAME>_ACTION_MAX_ATTEMPTS`, `<NAME>_ACTION_MAX_SECONDS`. */
export type ActionBoundVar = `${Uppercase<ProviderName>}_ACTION_MAX_${"ATTEMPTS" | "SECONDS"}`;
export const ACTION_BOUND_VARS = byProvider((provider): Record<"attempts" | "seconds", ActionBoundVar> => {
  const prefix = provider.name.toUpperCase() as Uppercase<ProviderName>;
  return { attempts: `${prefix}_ACTION_MAX_ATTEMPTS`, seconds: `${prefix}_ACTION_MAX_SECONDS` };
});

/** The module of a provider name read from storage or a request; undefined for one no longer (or never) known. */
export function providerModule(name: string): KnownProvider | undefined {
  return PROVIDERS.find((provider) => provider.name === name);
}

/** Why `providerJobId` cannot name one of `provider`'s jobs, or null (a provider without a shape takes any). */
export function providerJobIdProblem(provider: string, providerJobId: string): string | null {
  return providerModule(provider)?.jobIdProblem?.(providerJobId) ?? null;
}

/** A table with one entry per provider, in the registry's order. */
export function byProvider<T>(value: (provider: KnownProvider) => T): Readonly<Record<ProviderName, T>> {
  return Object.fromEntries(PROVIDERS.map((provider) => [provider.name, value(provider)])) as Record<ProviderName, T>;
}

/** Every adapter pointed at a running simulator, exactly as it would be at the real API. */
export function simulatorAdapters(
  simulatorUrl: string,
  shared: SharedAdapterConfig = {},
  token?: string,
): ProviderAdapters {
  const base = simulatorUrl.replace(/\/+$/, "");
  return { ...byProvider((provider) => provider.simulatorAdapter(base, shared, token)) };
}

/**
 * Adapters from configuration. PROVIDER_MODE is explicit (lib/env.ts resolves it: the simulator in
 * demo mode, required elsewhere). Live mode builds only the providers that have keys: a case for
 * another provider finds no adapter and parks with that evidence instead of failing every tick.
 */
export function providerAdaptersFromEnv(env: EnvSource, shared: SharedAdapterConfig = {}): ConfiguredAdapters {
  const mode = env.PROVIDER_MODE;
  if (mode === "simulator") {
    if (!env.SIMULATOR_URL) throw new ProviderConfigError("PROVIDER_MODE=simulator needs SIMULATOR_URL");
    return simulatorAdapters(env.SIMULATOR_URL, shared, env.SIMULATOR_TOKEN || undefined);
  }
  if (mode !== "live")
    throw new ProviderConfigError(`PROVIDER_MODE must be "simulator" or "live", not "${mode ?? ""}"`);
  const adapters: ConfiguredAdapters = {};
  for (const provider of PROVIDERS) {
    if (env[provider.liveKey]) adapters[provider.name] = provider.liveAdapter(env, shared);
  }
  if (Object.keys(adapters).length === 0) {
    throw new ProviderConfigError(`live mode needs at least one of ${LIVE_PROVIDER_KEYS.join(", ")}`);
  }
  return adapters;
}
