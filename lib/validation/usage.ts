import { z } from "zod";
import { PROVIDERS_WITH_JOB_COST, USAGE_FORMATS } from "@/lib/domain/usage";
import { providerName } from "./common";

/**
 * Largest export text one import reads (decision 073): what a server action carries (1 MB). The
 * API's JSON body reader stops at its own 64 KB first, so a larger file goes through the console.
 */
export const MAX_USAGE_FILE_CHARS = 900_000;

/** A provider's usage or invoice export, as its text (CSV, or fal's billing events as JSON), in one of the shapes the import reads. */
export const usageImportSchema = z.strictObject({
  provider: providerName,
  format: z.enum(USAGE_FORMATS),
  fileName: z.string().trim().min(1).max(200),
  content: z.string().min(1).max(MAX_USAGE_FILE_CHARS),
});

/** Reads a provider's own per-job cost from its API: Runway's tasks and fal's billing events say theirs. */
export const providerCostsSchema = z.strictObject({
  provider: z.enum(PROVIDERS_WITH_JOB_COST),
  limit: z.coerce.number().int().min(1).max(200).catch(50),
});

export const usageGapQuerySchema = z.strictObject({
  days: z.coerce.number().int().min(1).max(366).catch(30),
});
