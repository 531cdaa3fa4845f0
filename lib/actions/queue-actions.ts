"use server";

import { db } from "@/lib/db/client";
import { env } from "@/lib/env";
import { bulkApproveCases, previewBulkApprove } from "@/lib/services/case/bulk-approve-cases";
import { deleteView, saveView } from "@/lib/services/saved-view/saved-views";
import { bulkApproveSchema } from "@/lib/validation/bulk";
import { deleteViewSchema, saveViewSchema } from "@/lib/validation/saved-views";
import { safeAction } from "./safe-action";

const previewSchema = bulkApproveSchema.omit({ evidence: true });

export const previewBulkApproveAction = safeAction(previewSchema, (input, actor) =>
  previewBulkApprove(db(), actor, input, env().BULK_APPROVE_LIMIT),
);

export const bulkApproveAction = safeAction(
  bulkApproveSchema,
  (input, actor) => bulkApproveCases(db(), actor, input, env().BULK_APPROVE_LIMIT),
  { revalidate: () => ["/queue", "/overview"] },
);

export const saveViewAction = safeAction(saveViewSchema, (input, actor) => saveView(db(), actor, input), {
  revalidate: () => ["/queue"],
});

export const deleteViewAction = safeAction(deleteViewSchema, (input, actor) => deleteView(db(), actor, input.id), {
  revalidate: () => ["/queue"],
});
