import { z } from "zod";
import { PROVIDER_NAMES } from "@/lib/providers/registry";

/** The bounds the database also holds (provider_breakers_figures). */
export const BREAKER_WINDOW_SECONDS = { min: 60, max: 86_400 } as const;

const settings = {
  provider: z.enum(PROVIDER_NAMES),
  unknownPercent: z.number().int().min(1).max(100),
  windowSeconds: z.number().int().min(BREAKER_WINDOW_SECONDS.min).max(BREAKER_WINDOW_SECONDS.max),
  minOutcomes: z.number().int().min(1).max(1_000_000),
};

/** A provider's unknown-outcome breaker as an admin sets it (decision 037); `off: true` removes it. */
const breakerSettingsSchema = z.strictObject(settings);

export const providerBreakerSchema = z.union([
  breakerSettingsSchema,
  z.strictObject({ provider: settings.provider, off: z.literal(true) }),
]);
export type ProviderBreakerInput = z.infer<typeof providerBreakerSchema>;

export const providerParams = z.strictObject({ provider: z.enum(PROVIDER_NAMES) });

/** The Admin → Providers form: whole numbers as typed, the window in minutes; all three blank removes the breaker. */
export const providerBreakerFormSchema = z
  .strictObject({
    provider: z.enum(PROVIDER_NAMES),
    unknownPercent: z
      .string()
      .trim()
      .regex(/^\d{0,3}$/, "a whole percentage, 1 to 100"),
    windowMinutes: z
      .string()
      .trim()
      .regex(/^\d{0,4}$/, "whole minutes, 1 to 1440"),
    minOutcomes: z
      .string()
      .trim()
      .regex(/^\d{0,7}$/, "a whole number of outcomes, at least 1"),
  })
  .transform((form, ctx): ProviderBreakerInput => {
    if (form.unknownPercent === "" && form.windowMinutes === "" && form.minOutcomes === "") {
      return { provider: form.provider, off: true };
    }
    const parsed = breakerSettingsSchema.safeParse({
      provider: form.provider,
      unknownPercent: Number(form.unknownPercent || Number.NaN),
      windowSeconds: Number(form.windowMinutes || Number.NaN) * 60,
      minOutcomes: Number(form.minOutcomes || Number.NaN),
    });
    if (parsed.success) return parsed.data;
    const field: Record<string, string> = { windowSeconds: "windowMinutes" };
    for (const issue of parsed.error.issues) {
      const key = String(issue.path.at(-1) ?? "provider");
      ctx.addIssue({ code: "custom", path: [field[key] ?? key], message: "out of range or missing" });
    }
    return { provider: form.provider, off: true };
  });
