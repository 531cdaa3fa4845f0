import { z } from "zod";
import { BULK_PACES, type BulkPace } from "@/lib/domain/bulk-jobs";
import { HOLD_BULK_VERBS } from "@/lib/domain/hold-bulk";
import { evidenceText } from "./common";
import { producerParam } from "./producer-filter";

/** Settle or release, with the accounting note and evidence every hold decided gets (rules 6, 7). */
export const holdBulkActionSchema = z.strictObject({
  verb: z.enum(HOLD_BULK_VERBS),
  note: evidenceText,
  evidence: evidenceText,
});
export type HoldBulkActionInput = z.infer<typeof holdBulkActionSchema>;

/** The holds of resolved cases still open (finance's "needs a decision"), of one producer or all. */
export const holdBulkTargetSchema = z.strictObject({
  kind: z.literal("needs_decision"),
  producer: producerParam.optional(),
});

export const holdBulkDryRunSchema = z.strictObject({ action: holdBulkActionSchema, target: holdBulkTargetSchema });
export type HoldBulkDryRunInput = z.infer<typeof holdBulkDryRunSchema>;

const paces = Object.keys(BULK_PACES) as [BulkPace, ...BulkPace[]];
export const holdBulkStartSchema = holdBulkDryRunSchema.extend({
  token: z.string().trim().min(20).max(200),
  pace: z.enum(paces),
});
export type HoldBulkStartInput = z.infer<typeof holdBulkStartSchema>;
