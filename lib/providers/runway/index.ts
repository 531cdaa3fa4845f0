import { optionalText, optionalUrl } from "@/lib/env-fields";
import type { ProviderModule } from "../module";
import { createRunwayAdapter, RUNWAY_BASE_URL, RUNWAY_CAPABILITIES } from "./adapter";

const env = {
  /** Runway's API key (the name its own SDKs read); Runway signs no callbacks, so there is no secret beside it. */
  RUNWAYML_API_SECRET: optionalText,
  RUNWAYML_BASE_URL: optionalUrl,
};

export const runwayProvider: ProviderModule<"runway", typeof env> = {
  name: "runway",
  capabilities: RUNWAY_CAPABILITIES,
  env,
  liveKey: "RUNWAYML_API_SECRET",
  liveAdapter: (source, shared) =>
    createRunwayAdapter({
      ...shared,
      baseUrl: source.RUNWAYML_BASE_URL || RUNWAY_BASE_URL,
      apiKey: source.RUNWAYML_API_SECRET,
    }),
  simulatorAdapter: (base, shared, token) =>
    createRunwayAdapter({ ...shared, baseUrl: `${base}/runway`, apiKey: token }),
  // Its documentation names no page for one task (the API reference has only the task's API
  // address, which needs the key), so none is guessed.
  jobPage: () => ({ url: null, why: "Runway has no page for one task" }),
  paceEnvVar: "RUNWAY_REQUESTS_PER_SECOND",
  // Runway documents no maximum for a task; an hour is assumed (docs/providers.md, how long checks go on).
  maxRunSeconds: 60 * 60,
};
