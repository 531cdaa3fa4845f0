/**
 * Provider layer: read-only adapters for Replicate and fal. Nothing exported here can create a
 * provider job; the simulator (./simulator) is the only code in this folder that even accepts one.
 */
export { createFalAdapter, FAL_DELIVERY_HOSTS, type FalAdapterConfig, falAppId } from "./fal/adapter";
export {
  type ConfiguredAdapters,
  DEFAULT_SIMULATOR_URL,
  type ProviderAdapters,
  providerAdaptersFromEnv,
  simulatorAdapters,
} from "./registry";
export { createReplicateAdapter, REPLICATE_DELIVERY_HOSTS } from "./replicate/adapter";
export * from "./types";
