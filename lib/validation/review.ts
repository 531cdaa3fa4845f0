import { z } from "zod";
import { RECOVERY_ACTION_KINDS } from "@/lib/domain/stages";
import { evidenceText, id } from "./common";
import { amountMicros } from "./money-amount";

export const reconcileSchema = z.discriminatedUnion("verdict", [
  z.strictObject({ verdict: z.literal("attach"), providerJobId: id(300), evidence: evidenceText }),
  z.strictObject({ verdict: z.literal("no_job"), evidence: evidenceText }),
]);
export type ReconcileInput = z.infer<typeof reconcileSchema>;

// `action` is any string so that "submit_again" is refused by the domain with its reason.
export const approveSchema = z.strictObject({ action: z.string().trim().min(1).max(50), evidence: evidenceText });
export type ApproveInput = z.infer<typeof approveSchema>;
export const KNOWN_ACTIONS = RECOVERY_ACTION_KINDS;

export const reviewSchema = z.strictObject({ verdict: z.enum(["reject", "escalate"]), evidence: evidenceText });
export const evidenceOnlySchema = z.strictObject({ evidence: evidenceText });
export const noteSchema = z.strictObject({ text: evidenceText });
/** The reason, when given, is part of the assignment's one timeline entry (not a note beside it). */
export const assignSchema = z.strictObject({ assigneeId: z.uuid().nullable(), reason: evidenceText.optional() });

export const settleSchema = z.strictObject({ chargeMicros: amountMicros, note: evidenceText, evidence: evidenceText });
export const releaseSchema = z.strictObject({ note: evidenceText, evidence: evidenceText });
/** DESIGN rule 18: a hold whose send may still be charged is written off for a reason, not released. */
export const writeOffSchema = z.strictObject({ reason: evidenceText, evidence: evidenceText });
export const lateChargeDecisionSchema = z.strictObject({ note: evidenceText });
export const replacementRequestSchema = z.strictObject({
  evidence: evidenceText,
  amountMicros: amountMicros.optional(),
});
export const replacementDecisionSchema = z.strictObject({ evidence: evidenceText });
