import { z } from "zod";
import { HOLD_STATUSES } from "@/lib/domain/holds";
import { producerParam } from "./producer-filter";
import { lateChargeDecisionSchema, releaseSchema, replacementDecisionSchema, settleSchema } from "./review";

/** Console forms name the record they act on; the decision itself is the API's schema. */
export const settleHoldSchema = settleSchema.extend({ holdRef: z.uuid() });
export const releaseHoldSchema = releaseSchema.extend({ holdRef: z.uuid() });
export const lateChargeFormSchema = lateChargeDecisionSchema.extend({ holdRef: z.uuid() });
export const decideReplacementSchema = replacementDecisionSchema.extend({ requestId: z.uuid() });

export const listHoldsSchema = z.object({
  status: z.enum(HOLD_STATUSES).catch("held"),
  /** Held holds of resolved cases only: money nothing else will ever decide (rule 13). */
  view: z.enum(["needs_decision"]).optional().catch(undefined),
  cursor: z.string().max(200).optional().catch(undefined),
  limit: z.coerce.number().int().min(1).max(200).catch(50),
  /** One producer's holds (decision 034); a malformed one is ignored like the other fields. */
  producer: producerParam.catch(undefined),
  /** An operation ID, or the start of one: the holds of matching operations (the case's own words). */
  operation: z.string().trim().min(1).max(200).optional().catch(undefined),
});
export type ListHoldsQuery = z.infer<typeof listHoldsSchema>;

/** Longest export in one file; a year of holds is still a spreadsheet someone can open. */
export const MAX_EXPORT_DAYS = 366;
const DAY_MS = 24 * 60 * 60 * 1000;

const day = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, "a date as YYYY-MM-DD")
  .refine((text) => {
    const parsed = new Date(`${text}T00:00:00Z`);
    return !Number.isNaN(parsed.getTime()) && parsed.toISOString().startsWith(text);
  }, "not a calendar date");

/** `from` and `to` are whole UTC days, both included; `producer` limits the rows to one producer's. */
export const exportQuerySchema = z
  .strictObject({ from: day, to: day, kind: z.enum(["holds", "ledger"]), producer: producerParam })
  .superRefine((value, ctx) => {
    const span = (Date.parse(`${value.to}T00:00:00Z`) - Date.parse(`${value.from}T00:00:00Z`)) / DAY_MS;
    if (span < 0) ctx.addIssue({ code: "custom", path: ["to"], message: "must not be before from" });
    if (span >= MAX_EXPORT_DAYS) {
      ctx.addIssue({ code: "custom", path: ["to"], message: `at most ${MAX_EXPORT_DAYS} days per export` });
    }
  });
export type ExportQuery = z.infer<typeof exportQuerySchema>;

/** The half-open instant range [start, end) covering the inclusive day range. */
export function exportWindow(query: Pick<ExportQuery, "from" | "to">): { start: Date; end: Date } {
  const start = new Date(`${query.from}T00:00:00Z`);
  const end = new Date(Date.parse(`${query.to}T00:00:00Z`) + DAY_MS);
  return { start, end };
}
