import { z } from "zod";
import { PROVIDER_NAMES } from "@/lib/providers/registry";

export const PACED_PROVIDERS = PROVIDER_NAMES;
/** Far above any provider's published limit: a slip of a few zeros is refused rather than obeyed. */
export const MAX_REQUESTS_PER_SECOND = 10_000;

/** A provider's shared request rate as an admin sets it; null clears it (unpaced). */
export const providerPaceSchema = z.strictObject({
  provider: z.enum(PACED_PROVIDERS),
  requestsPerSecond: z.number().positive().max(MAX_REQUESTS_PER_SECOND).nullable(),
});

/** The Admin → Providers form: the rate as typed; blank clears it. */
export const providerPaceFormSchema = z.strictObject({
  provider: z.enum(PACED_PROVIDERS),
  // Text, not a coerced number: "abc" must be an error, not NaN, and blank must mean "unpaced", not 0.
  requestsPerSecond: z
    .string()
    .trim()
    .regex(/^(\d{1,5}(\.\d{1,3})?)?$/, "a number of requests per second, e.g. 10 or 0.5; blank for unpaced")
    .transform((text) => (text === "" ? null : Number(text)))
    .pipe(
      z
        .number()
        .positive("more than 0; blank for unpaced")
        .max(MAX_REQUESTS_PER_SECOND, `at most ${MAX_REQUESTS_PER_SECOND}`)
        .nullable(),
    ),
});
