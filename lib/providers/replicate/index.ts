import { z } from "zod";
import { optionalText, optionalUrl } from "@/lib/env-fields";
import type { ProviderModule } from "../module";
import { createReplicateAdapter, REPLICATE_BASE_URL, REPLICATE_CAPABILITIES } from "./adapter";
import { replicatePredictionPage } from "./job-page";

const env = {
  REPLICATE_API_TOKEN: optionalText,
  REPLICATE_BASE_URL: optionalUrl,
  /** Replicate's webhook signing secret; unset with REPLICATE_API_TOKEN set, it is read once from Replicate. */
  REPLICATE_WEBHOOK_SECRET: optionalText.pipe(
    z
      .string()
      .regex(/^whsec_[A-Za-z0-9+/=]+$/, 'the "whsec_…" secret from Replicate')
      .optional(),
  ),
};

export const replicateProvider: ProviderModule<"replicate", typeof env> = {
  name: "replicate",
  capabilities: REPLICATE_CAPABILITIES,
  env,
  liveKey: "REPLICATE_API_TOKEN",
  liveAdapter: (source, shared) =>
    createReplicateAdapter({
      ...shared,
      baseUrl: source.REPLICATE_BASE_URL || REPLICATE_BASE_URL,
      apiKey: source.REPLICATE_API_TOKEN,
    }),
  simulatorAdapter: (base, shared, token) =>
    createReplicateAdapter({ ...shared, baseUrl: `${base}/replicate`, apiKey: token }),
  // Every prediction has a web page (replicate/job-page.ts).
  jobPage: (id) => ({ url: replicatePredictionPage(id) }),
  paceEnvVar: "REPLICATE_REQUESTS_PER_SECOND",
  // Replicate: "predictions time out after running for 30 minutes" (docs/providers.md, how long checks go on).
  maxRunSeconds: 30 * 60,
};
