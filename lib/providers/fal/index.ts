import { optionalText, optionalUrl } from "@/lib/env-fields";
import type { ProviderModule } from "../module";
import { createFalAdapter, FAL_CAPABILITIES, FAL_PLATFORM_BASE_URL, FAL_QUEUE_BASE_URL } from "./adapter";

const env = {
  FAL_KEY: optionalText,
  /** Where fal publishes the keys that sign its webhooks. */
  FAL_JWKS_URL: optionalUrl,
  /**
   * The fal account (user ID) whose webhooks are this deployment's; unset, the first verified
   * webhook about a recorded job pins it. fal's keys sign every customer's webhooks.
   */
  FAL_USER_ID: optionalText,
};

export const falProvider: ProviderModule<"fal", typeof env> = {
  name: "fal",
  capabilities: FAL_CAPABILITIES,
  env,
  liveKey: "FAL_KEY",
  liveAdapter: (source, shared) =>
    createFalAdapter({
      ...shared,
      baseUrl: source.FAL_QUEUE_BASE_URL || FAL_QUEUE_BASE_URL,
      platformBaseUrl: source.FAL_PLATFORM_BASE_URL || FAL_PLATFORM_BASE_URL,
      apiKey: source.FAL_KEY,
    }),
  simulatorAdapter: (base, shared, token) =>
    createFalAdapter({ ...shared, baseUrl: `${base}/fal`, platformBaseUrl: `${base}/fal-platform/v1`, apiKey: token }),
  // Its documentation names no per-request page: the queue's status and response URLs are API calls
  // that need the key, not pages, so none is guessed (docs/providers.md).
  jobPage: () => ({ url: null, why: "fal has no page for one request" }),
  paceEnvVar: "FAL_REQUESTS_PER_SECOND",
  // fal documents no maximum once a runner starts; an hour is assumed (docs/providers.md, how long checks go on).
  maxRunSeconds: 60 * 60,
};
