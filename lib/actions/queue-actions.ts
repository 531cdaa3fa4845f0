"use server";

import { db } from "@/lib/db/client";
import { env } from "@/lib/env";
import { bulkApproveCases, previewBulkApprove } from "@/lib/services/case/bulk-approve-cases";
import { bulkApproveSchema } from "@/lib/validation/bulk";
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
