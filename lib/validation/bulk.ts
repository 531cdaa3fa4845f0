import { z } from "zod";
import { evidenceText } from "./common";
import { listCasesSchema } from "./list-cases";

// Bulk is offered only for the two stages whose recovery cannot buy anything.
export const bulkStageSchema = z.enum(["polling", "delivery"]);

export const bulkApproveSchema = z.strictObject({
  stage: bulkStageSchema,
  evidence: evidenceText,
  target: z.discriminatedUnion("kind", [
    z.strictObject({ kind: z.literal("ids"), caseIds: z.array(z.uuid()).min(1).max(10_000) }),
    z.strictObject({
      kind: z.literal("filter"),
      filter: listCasesSchema.omit({ cursor: true, limit: true, sort: true }),
    }),
  ]),
});
export type BulkApproveInput = z.infer<typeof bulkApproveSchema>;
