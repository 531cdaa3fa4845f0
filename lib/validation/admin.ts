import { z } from "zod";
import { tryParseMoneyToMicros } from "@/lib/domain/money";
import { PERSONAL_TOKEN_EXPIRY_DAYS } from "@/lib/domain/personal-tokens";
import { ROLES } from "@/lib/domain/roles";
import { AppError } from "@/lib/errors";
import type { WebhookAllowList } from "@/lib/notify/webhook-allow-list";
import { webhookUrlProblem } from "@/lib/notify/webhook-target";
import { PROVIDER_NAMES } from "@/lib/providers/registry";
import { currency } from "./common";
import { amountMicros } from "./money-amount";

/** What the console's forms and the API parse before a service is called; services take the parsed types (decision 044). */

export const uuid = z.uuid("not a valid id");

export const roleList = z
  .array(z.enum(ROLES))
  .min(1, "choose at least one role")
  .transform((roles) => [...new Set(roles)]);

export const createUserSchema = z.strictObject({
  email: z.string().trim().toLowerCase().pipe(z.email("enter an email address")),
  name: z
    .string()
    .trim()
    .max(200, "at most 200 characters")
    .transform((name) => (name === "" ? undefined : name))
    .optional(),
  roles: roleList,
});
export type CreateUserInput = z.infer<typeof createUserSchema>;

export const setUserRolesSchema = z.strictObject({ userId: uuid, roles: roleList });
export type SetUserRolesInput = z.infer<typeof setUserRolesSchema>;
export const setUserActiveSchema = z.strictObject({ userId: uuid, active: z.boolean() });
export const userIdSchema = z.strictObject({ userId: uuid });
/** A reset always ends the user's sessions; it revokes their personal tokens only when asked. */
export const resetPasswordSchema = z.strictObject({ userId: uuid, keepPersonalTokens: z.boolean().default(false) });
export type ResetPasswordInput = z.infer<typeof resetPasswordSchema>;

/** Producer and worker names: the producer's name is how its operations are owned (decision 003). */
export const machineName = z
  .string()
  .trim()
  .regex(/^[a-z0-9][a-z0-9._-]{0,62}$/i, "letters, digits, '.', '_' or '-', up to 63 characters, no spaces");

/**
 * The producers a person works for (decision 035): their API keys' names. Empty means every
 * producer; duplicates are dropped. At most 100, which an agency's shops stay well under.
 */
export const setUserProducersSchema = z.strictObject({
  userId: uuid,
  producers: z
    .array(machineName)
    .max(100, "at most 100 producers")
    .transform((names) => [...new Set(names)].sort()),
});
export type SetUserProducersInput = z.infer<typeof setUserProducersSchema>;

export const createMachineTokenSchema = z.strictObject({
  kind: z.enum(["api_key", "worker"]),
  name: machineName,
});
export const tokenIdSchema = z.strictObject({ tokenId: uuid });

export const createPersonalTokenSchema = z.strictObject({
  name: z.string().trim().min(1, "give the token a name").max(100, "at most 100 characters"),
  /** null: the token does not expire (it can still be revoked). */
  expiresInDays: z.literal(PERSONAL_TOKEN_EXPIRY_DAYS).nullable().default(null),
});

/** Which non-public or plain-http endpoints a form may save: WEBHOOK_ALLOWED_HOSTS (demo mode: this machine). */
export type EndpointUrlOptions = { allow: WebhookAllowList };

/**
 * Notification URLs: https to a public address; plain http and private or local addresses only
 * for hosts on the allow-list. No credentials in the URL, no fragment. Names are not resolved
 * here: the worker checks the address again before every send (lib/notify/webhook-target.ts).
 */
export function endpointUrlProblem(value: string, options: EndpointUrlOptions): string | null {
  if (value.length > 2048) return "at most 2048 characters";
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "enter a full URL, e.g. https://example.com/hooks/video-recovery";
  }
  if (url.hash) return "must not contain a #fragment";
  return webhookUrlProblem(value, options.allow);
}

/**
 * The address rules depend on the deployment (its allow-list), so the service that saves a URL
 * applies them with the settings it is handed; the adapter has already parsed the URL as text.
 */
export function requireEndpointUrl(url: string, options: EndpointUrlOptions): string {
  const problem = endpointUrlProblem(url, options);
  if (problem)
    throw new AppError("invalid_request", "Check the highlighted fields.", {
      issues: [{ path: "url", message: problem }],
    });
  return url;
}

/** A URL as a form or the API sends it, before the address rules (requireEndpointUrl). */
export const endpointUrlText = z.string().trim().min(1, "enter the URL").max(4096, "at most 2048 characters");

/** An admin names the producer; its address rules are the service's (requireEndpointUrl). */
export const saveEndpointSchema = z.strictObject({ producer: machineName, url: endpointUrlText });
export const endpointIdSchema = z.strictObject({ endpointId: uuid });
/**
 * A producer's own endpoint through the API: the producer is the key's name, so only the URL. Its
 * rules depend on the deployment (the allow-list), so the service checks it with `requireEndpointUrl`.
 */
export const ownEndpointBody = z.strictObject({ url: endpointUrlText });
export const setEndpointDisabledSchema = z.strictObject({ endpointId: uuid, disabled: z.boolean() });

export const PRICE_UNITS = ["per_generation", "per_second"] as const;
export type PriceUnit = (typeof PRICE_UNITS)[number];

const priceName = (what: string) =>
  z.string().trim().min(1, `enter the ${what}`).max(200, "at most 200 characters").regex(/^\S+$/, "no spaces");

/**
 * The console sends a decimal such as "0.022"; it becomes integer micro-units without a float.
 * A price is a rate, finer than the currency's minor unit by nature ($0.022 per second), so it
 * is read to six decimals whatever the currency; the amounts it produces are rounded only for display.
 */
export const savePriceSchema = z
  .strictObject({
    // Provider names are one closed list at every door: a price for "Replicate" would never apply.
    provider: z.enum(PROVIDER_NAMES),
    model: priceName("model"),
    unit: z.enum(PRICE_UNITS),
    price: z
      .string()
      .transform((text, ctx) => {
        const parsed = tryParseMoneyToMicros(text);
        if (!parsed.ok || parsed.value <= 0) {
          ctx.addIssue({ code: "custom", message: "a positive amount such as 0.10, at most six decimals" });
          return z.NEVER;
        }
        return parsed.value;
      })
      .pipe(amountMicros),
    currency,
  })
  .transform(({ price, ...rest }) => ({ ...rest, priceMicros: price }));
export type SavePriceForm = z.infer<typeof savePriceSchema>;
export const priceIdSchema = z.strictObject({ priceId: uuid });

/** Minutes in the form (what an operator thinks in), whole seconds in the service and the table. */
export const saveProviderSettingSchema = z.strictObject({
  provider: z.enum(PROVIDER_NAMES),
  // Text, not a coerced number: an empty field must be an error, not 0 minutes.
  settlingMinutes: z
    .string()
    .trim()
    .regex(/^\d{1,5}$/, "a whole number of minutes")
    .transform(Number)
    .pipe(z.number().max(7 * 24 * 60, "at most a week (10080 minutes)")),
});

export const saveConsoleSettingsSchema = z.strictObject({ assignmentIsOwnership: z.boolean() });
