import { z } from "zod";
import { ALERT_DESTINATION_KINDS, ALERT_RULE_KINDS } from "@/lib/domain/alert-rules";
import { tryParseMoneyToMicros } from "@/lib/domain/money";
import { uuid } from "./admin";
import { currency } from "./common";
import { limitMicros } from "./money-amount";

/** Shared by the console's forms and the API, so each refuses what the other would; services take the parsed types. */

const name = z.string().trim().min(1, "give it a name").max(100, "at most 100 characters");
const minutes = (max: number) =>
  z.coerce.number().int("whole minutes").min(1, "at least 1 minute").max(max, `at most ${max} minutes`);

/** The fields of a rule as a form or the API sends them (the amount still a decimal string). */
export const alertRuleBody = z.strictObject({
  id: uuid.optional(),
  name,
  kind: z.enum(ALERT_RULE_KINDS),
  thresholdCount: z.coerce.number().int("a whole number").min(1, "at least 1").max(1_000_000).default(1),
  /** "" or absent: no money threshold; otherwise a decimal such as "250.00". */
  thresholdAmount: z.string().trim().max(40).nullish(),
  thresholdCurrency: z.preprocess((v) => (v === "" ? null : v), currency.nullish()).transform((v) => v ?? null),
  windowMinutes: minutes(7 * 24 * 60).default(60),
  renotifyMinutes: minutes(7 * 24 * 60).default(60),
  destinationId: uuid,
  enabled: z.boolean().default(true),
});

/** What the service stores: the amount read into integer micro-units without a float. */
export const saveAlertRuleSchema = alertRuleBody
  .extend({
    thresholdAmount: alertRuleBody.shape.thresholdAmount
      .transform((text, ctx) => {
        if (!text) return null;
        const parsed = tryParseMoneyToMicros(text);
        if (!parsed.ok || parsed.value <= 0) {
          ctx.addIssue({ code: "custom", message: "a positive amount such as 250.00" });
          return z.NEVER;
        }
        return parsed.value;
      })
      .pipe(limitMicros.nullable()),
  })
  .superRefine((rule, ctx) => {
    if (rule.thresholdAmount !== null && rule.thresholdCurrency === null) {
      ctx.addIssue({ code: "custom", path: ["thresholdCurrency"], message: "choose the amount's currency" });
    }
  });
export type SaveAlertRuleInput = z.infer<typeof saveAlertRuleSchema>;

export const listAlertFiringsSchema = z.strictObject({
  ruleId: uuid.optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});
export type ListAlertFiringsQuery = z.infer<typeof listAlertFiringsSchema>;

/**
 * A destination as a form or the API sends it. Its URL goes through the same address rules as a
 * producer's endpoint (decision 018); they need the deployment's allow-list, so the service applies
 * them (requireEndpointUrl) with it.
 */
export const alertDestinationBody = z.strictObject({
  /** Absent: a new destination. Present: its new name and URL (its kind never changes). */
  id: uuid.optional(),
  name,
  kind: z.enum(ALERT_DESTINATION_KINDS),
  url: z.string().trim().min(1, "enter the URL").max(2048, "at most 2048 characters"),
  disabled: z.boolean().default(false),
});
export type SaveAlertDestinationInput = z.infer<typeof alertDestinationBody>;
