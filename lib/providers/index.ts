/**
 * Provider layer: read-only adapters for Replicate, fal, Runway, Veo and Luma. Nothing exported here can create a
 * provider job; the simulator (./simulator) is the only code in this folder that even accepts one.
 */
export { createFalAdapter, FAL_DELIVERY_HOSTS, type FalAdapterConfig, falAppId } from "./fal/adapter";
export { createLumaAdapter, LUMA_DELIVERY_HOSTS } from "./luma/adapter";
export type { ProviderModule } from "./module";
export {
  byProvider,
  type ConfiguredAdapters,
  DEFAULT_SIMULATOR_URL,
  LIVE_PROVIDER_KEYS,
  PROVIDER_NAMES,
  PROVIDERS,
  type ProviderAdapters,
  providerAdaptersFromEnv,
  simulatorAdapters,
} from "./registry";
export { createReplicateAdapter, REPLICATE_DELIVERY_HOSTS } from "./replicate/adapter";
export { createRunwayAdapter, RUNWAY_API_VERSION, RUNWAY_DELIVERY_HOSTS } from "./runway/adapter";
export * from "./types";
export { createVeoAdapter, VEO_DELIVERY_HOSTS } from "./veo/adapter";
