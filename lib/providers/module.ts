import type { z } from "zod";
import type { AdapterConfig, ProviderAdapter, ProviderCapabilities } from "./types";

export type SharedAdapterConfig = Omit<AdapterConfig, "baseUrl" | "apiKey">;
export type EnvSource = Readonly<Record<string, string | undefined>>;
export type JobPage = { url: string } | { url: null; why: string };

/**
 * Everything the rest of the application knows about one provider, exported by its folder's
 * index.ts and listed once in lib/providers/registry.ts: every per-provider table (names, zod enums,
 * live keys, capabilities, job pages, pace variables) is derived from that list.
 */
export type ProviderModule<N extends string = string, E extends z.ZodRawShape = z.ZodRawShape> = {
  readonly name: N;
  /** What its adapter can do, known without building one; `noJobSettlingSeconds` is the default period. */
  readonly capabilities: ProviderCapabilities;
  /** Its settings, declared into lib/env.ts's schema. */
  readonly env: E;
  /** The setting (its API key) that turns it on in live mode. */
  readonly liveKey: keyof E & string;
  /** Its live adapter, from the key and any base-URL override in `env`. */
  liveAdapter(env: EnvSource, shared: SharedAdapterConfig): ProviderAdapter;
  /** Its adapter pointed at a simulator at `simulatorUrl` (no trailing slash), as it would be at the real API. */
  simulatorAdapter(simulatorUrl: string, shared: SharedAdapterConfig, token?: string): ProviderAdapter;
  /** Where a person can see a live job in the provider's own console, or why there is no such page. */
  jobPage(providerJobId: string): JobPage;
  /** The setting that gives the request rate the provider allows the whole deployment (decision 030). */
  readonly paceEnvVar: string;
  /**
   * The longest a job may run by the provider's documentation (or the assumption docs/providers.md
   * records where it states none): the default bound of its approved actions (DESIGN rule 19).
   */
  readonly maxRunSeconds: number;
  /**
   * Why a job ID cannot be one of this provider's, when its IDs have a shape the adapter needs (Veo's
   * operation names); checked where an ID enters, so a case never holds one its worker cannot read.
   */
  jobIdProblem?(providerJobId: string): string | null;
};
