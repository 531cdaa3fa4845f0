import { z } from "zod";
import { BULK_PACES, type BulkPace } from "@/lib/domain/bulk-jobs";
import { evidenceText } from "./common";
import { listCasesSchema } from "./list-cases";

/** The cases a bulk action is for: rows picked, or the queue's filter exactly as the queue applies it. */
export const bulkTargetSchema = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("ids"), caseIds: z.array(z.uuid()).min(1).max(10_000) }),
  z.strictObject({
    kind: z.literal("filter"),
    filter: listCasesSchema.omit({ cursor: true, limit: true, sort: true }),
  }),
]);
export type BulkTarget = z.infer<typeof bulkTargetSchema>;

/** One verb and what it carries, the same for every case (lib/domain/bulk-verbs.ts). */
export const bulkActionSchema = z.discriminatedUnion("verb", [
  z.strictObject({ verb: z.enum(["approve", "reject", "escalate", "accept_failure"]), evidence: evidenceText }),
  z.strictObject({ verb: z.literal("assign"), assigneeId: z.uuid().nullable() }),
  z.strictObject({ verb: z.literal("note"), text: evidenceText }),
]);

/**
 * `POST /api/v1/cases/bulk`: a dry run answers what would happen and a token; the execution sends
 * the same action and target with that token, and acts on the previewed cases only (decision 032).
 */
export const bulkRequestSchema = z.discriminatedUnion("mode", [
  z.strictObject({ mode: z.literal("dry_run"), action: bulkActionSchema, target: bulkTargetSchema }),
  z.strictObject({
    mode: z.literal("execute"),
    action: bulkActionSchema,
    target: bulkTargetSchema,
    token: z.string().trim().min(20).max(200),
  }),
]);
export type BulkRequest = z.infer<typeof bulkRequestSchema>;
export type BulkDryRunInput = Extract<BulkRequest, { mode: "dry_run" }>;
export type BulkExecuteInput = Extract<BulkRequest, { mode: "execute" }>;

const BULK_PACE_NAMES_TUPLE = Object.keys(BULK_PACES) as [BulkPace, ...BulkPace[]];

/** The console's execution: the dry run's request and token, and how fast to go (decision 065). */
export const bulkJobStartSchema = bulkRequestSchema.options[1].extend({ pace: z.enum(BULK_PACE_NAMES_TUPLE) });
export type BulkJobStartInput = z.infer<typeof bulkJobStartSchema>;

export const bulkJobRefSchema = z.strictObject({ jobId: z.uuid() });

/** The bulk jobs page: a page of jobs, newest first, after `cursor` (as the page issued it). */
export const bulkJobListSchema = z.object({ cursor: z.string().max(200).optional() });
export type BulkJobListQuery = z.infer<typeof bulkJobListSchema>;
