import { optionalText, optionalUrl } from "@/lib/env-fields";
import type { ProviderModule } from "../module";
import { createLumaAdapter, LUMA_BASE_URL, LUMA_CAPABILITIES } from "./adapter";

const env = {
  /** Luma's API key (the name its own SDKs read); Luma signs no callbacks, so there is no secret beside it. */
  LUMAAI_API_KEY: optionalText,
  LUMAAI_BASE_URL: optionalUrl,
};

export const lumaProvider: ProviderModule<"luma", typeof env> = {
  name: "luma",
  capabilities: LUMA_CAPABILITIES,
  env,
  liveKey: "LUMAAI_API_KEY",
  liveAdapter: (source, shared) =>
    createLumaAdapter({ ...shared, baseUrl: source.LUMAAI_BASE_URL || LUMA_BASE_URL, apiKey: source.LUMAAI_API_KEY }),
  simulatorAdapter: (base, shared, token) =>
    createLumaAdapter({ ...shared, baseUrl: `${base}/luma/dream-machine/v1`, apiKey: token }),
  // Its documentation names no page for one generation (only the API address, which needs the key),
  // so none is guessed.
  jobPage: () => ({ url: null, why: "Luma has no page for one generation" }),
  paceEnvVar: "LUMA_REQUESTS_PER_SECOND",
  // Luma documents no maximum for a generation; an hour is assumed (docs/providers.md, how long checks go on).
  maxRunSeconds: 60 * 60,
};
