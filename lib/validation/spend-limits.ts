import { z } from "zod";
import { currency, id } from "./common";

/** A limit in micro-units, zero included (zero stops every replacement in that window). */
const limitMicros = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).nullable();

/**
 * One spend limit as finance sets it: per currency, for every producer (producer absent or null) or
 * one; both figures null clears it. Shared by the API (PUT) and the console's form.
 */
export const spendLimitSchema = z.strictObject({
  currency,
  producer: id(200).nullable().optional(),
  perHourMicros: limitMicros,
  perDayMicros: limitMicros,
});
export type SpendLimitInput = z.infer<typeof spendLimitSchema>;
