import { z } from "zod";
import type { ProviderName } from "@/lib/providers/types";

export const PACED_PROVIDERS = ["replicate", "fal"] as const satisfies readonly ProviderName[];
/** Far above any provider's published limit: a slip of a few zeros is refused rather than obeyed. */
export const MAX_REQUESTS_PER_SECOND = 10_000;

/** A provider's shared request rate as an admin sets it; null clears it (unpaced). */
export const providerPaceSchema = z.strictObject({
  provider: z.enum(PACED_PROVIDERS),
  requestsPerSecond: z.number().positive().max(MAX_REQUESTS_PER_SECOND).nullable(),
});
