import type { ProviderName } from "../../lib/providers/types";
import { falSimulator } from "./fal-routes";
import type { SimJob } from "./jobs";
import { lumaSimulator } from "./luma-routes";
import { replicateSimulator } from "./replicate-routes";
import type { SimulatorProvider } from "./routes";
import { runwaySimulator } from "./runway-routes";
import { veoSimulator } from "./veo-routes";

/**
 * Every provider the simulator stands in for, one entry per provider in lib/providers/registry.ts
 * (the record's type makes a missing one a compile error). Routes, the request log's classifier,
 * seeding defaults and create counts all come from here.
 */
export const SIMULATOR_PROVIDERS: Readonly<Record<ProviderName, SimulatorProvider>> = {
  replicate: replicateSimulator,
  fal: falSimulator,
  runway: runwaySimulator,
  veo: veoSimulator,
  luma: lumaSimulator,
};

/** A fresh job ID of `provider`'s own shape. */
export const newJobId = (provider: ProviderName): string => SIMULATOR_PROVIDERS[provider].newJobId();

/** The ID `job`'s provider hands the caller for it, which may differ from the simulator's own key. */
export const providerJobIdOf = (job: SimJob): string =>
  SIMULATOR_PROVIDERS[job.provider].providerJobId?.(job) ?? job.id;
