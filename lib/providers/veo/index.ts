import { optionalText, optionalUrl } from "@/lib/env-fields";
import type { ProviderModule } from "../module";
import { createVeoAdapter, operationNameProblem, VEO_BASE_URL, VEO_CAPABILITIES } from "./adapter";

const env = {
  /** The Gemini API key that reads Veo operations (the name Google's SDKs read); Veo sends no callbacks. */
  GEMINI_API_KEY: optionalText,
  GEMINI_BASE_URL: optionalUrl,
};

export const veoProvider: ProviderModule<"veo", typeof env> = {
  name: "veo",
  capabilities: VEO_CAPABILITIES,
  env,
  liveKey: "GEMINI_API_KEY",
  liveAdapter: (source, shared) =>
    createVeoAdapter({ ...shared, baseUrl: source.GEMINI_BASE_URL || VEO_BASE_URL, apiKey: source.GEMINI_API_KEY }),
  simulatorAdapter: (base, shared, token) =>
    createVeoAdapter({ ...shared, baseUrl: `${base}/veo/v1beta`, apiKey: token }),
  // An operation is an API resource read with the key; the guide names no page for one.
  jobPage: () => ({ url: null, why: "Veo has no page for one operation" }),
  paceEnvVar: "VEO_REQUESTS_PER_SECOND",
  // Veo: request latency at most 6 minutes, at peak hours (docs/providers.md, how long checks go on).
  maxRunSeconds: 6 * 60,
  jobIdProblem: operationNameProblem,
};
