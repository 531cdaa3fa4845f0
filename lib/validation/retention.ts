import { z } from "zod";
import { MAX_RETENTION_DAYS } from "@/lib/domain/retention";
import { machineName } from "./admin";

/**
 * A retention policy as an admin sets it: for every producer (producer null) or one producer;
 * days after resolution, null for off, or "global" to drop a producer's own and follow the global one.
 */
export const retentionPolicySchema = z.strictObject({
  producer: machineName.nullable(),
  days: z.union([z.int().min(1).max(MAX_RETENTION_DAYS), z.null(), z.literal("global")]),
});
export type RetentionPolicyInput = z.infer<typeof retentionPolicySchema>;

/** The Admin → Retention form: producer blank for the global policy; days as typed, "off" or "global". */
export const retentionPolicyFormSchema = z.strictObject({
  producer: z
    .string()
    .trim()
    .transform((text) => (text === "" ? null : text))
    .pipe(machineName.nullable()),
  days: z
    .string()
    .trim()
    .toLowerCase()
    .regex(/^(\d{1,4}|off|global)$/, `a number of days (1 to ${MAX_RETENTION_DAYS}), "off", or "global"`)
    .transform((text) => (text === "off" ? null : text === "global" ? ("global" as const) : Number(text)))
    .pipe(z.union([z.int().min(1, "at least 1 day").max(MAX_RETENTION_DAYS), z.null(), z.literal("global")])),
});
