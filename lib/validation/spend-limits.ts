import { z } from "zod";
import { isCurrencyCode } from "@/lib/domain/currency";
import { tryParseMoneyToMicros } from "@/lib/domain/money";
import { SPEND_LIMIT_TARGETS } from "@/lib/domain/spend-limits";
import { currency, id } from "./common";
import { limitMicros as boundedLimit } from "./money-amount";

/** A limit in micro-units, zero included (zero stops every replacement in that window). */
const limitMicros = boundedLimit.nullable();

/**
 * One spend limit as finance sets it: on replacements (the default) per currency, for every
 * producer (producer absent or null) or one; or on a producer's sends, optionally one model's
 * (decision 037). Both figures null clears it. Shared by the API (PUT) and the console's form.
 */
export const spendLimitSchema = z
  .strictObject({
    appliesTo: z.enum(SPEND_LIMIT_TARGETS).optional(),
    currency,
    producer: id(200).nullable().optional(),
    model: id(200).nullable().optional(),
    perHourMicros: limitMicros,
    perDayMicros: limitMicros,
  })
  .superRefine((limit, ctx) => {
    if (limit.appliesTo === "sends" && !limit.producer) {
      ctx.addIssue({ code: "custom", path: ["producer"], message: "a limit on sends names its producer" });
    }
    if (limit.appliesTo !== "sends" && limit.model) {
      ctx.addIssue({ code: "custom", path: ["model"], message: "only a limit on sends names a model" });
    }
  });
export type SpendLimitInput = z.infer<typeof spendLimitSchema>;

/** An amount typed in the console, in the currency's own decimals; blank means no limit on that window. */
function amountField(text: string, currencyCode: string, path: string, ctx: z.RefinementCtx): number | null {
  if (text.trim() === "") return null;
  const parsed = tryParseMoneyToMicros(text, isCurrencyCode(currencyCode) ? currencyCode : undefined);
  if (parsed.ok) return parsed.value;
  ctx.addIssue({ code: "custom", path: [path], message: `${parsed.error.message}, e.g. 250.00` });
  return null;
}

/**
 * The Finance page's form: amounts as typed ("250.00"), turned into micro-units without a float;
 * a blank producer is every producer; both amounts blank clears the limit.
 */
export const spendLimitFormSchema = z
  .strictObject({
    appliesTo: z.enum(SPEND_LIMIT_TARGETS).default("replacements"),
    currency: z.string().trim().toUpperCase().pipe(currency),
    producer: z.string().trim().max(200),
    model: z.string().trim().max(200).default(""),
    perHour: z.string().max(40),
    perDay: z.string().max(40),
  })
  .superRefine((form, ctx) => {
    if (form.appliesTo === "sends" && form.producer === "") {
      ctx.addIssue({ code: "custom", path: ["producer"], message: "a limit on sends names its producer" });
    }
    if (form.appliesTo === "replacements" && form.model !== "") {
      ctx.addIssue({ code: "custom", path: ["model"], message: "only a limit on sends names a model" });
    }
  })
  .transform((form, ctx) => ({
    appliesTo: form.appliesTo,
    currency: form.currency,
    producer: form.producer === "" ? null : form.producer,
    model: form.model === "" ? null : form.model,
    perHourMicros: amountField(form.perHour, form.currency, "perHour", ctx),
    perDayMicros: amountField(form.perDay, form.currency, "perDay", ctx),
  }));
