"use server";

import { db } from "@/lib/db/client";
import { dryRunHoldBulk, startHoldBulkJob } from "@/lib/services/bulk-job/bulk-holds";
import { cancelBulkJob } from "@/lib/services/bulk-job/cancel-bulk-job";
import { getBulkJob } from "@/lib/services/bulk-job/read-bulk-job";
import { startCaseBulkJob } from "@/lib/services/bulk-job/start-case-bulk-job";
import { bulkJobRefSchema, bulkJobStartSchema } from "@/lib/validation/bulk";
import { holdBulkDryRunSchema, holdBulkStartSchema } from "@/lib/validation/hold-bulk";
import { safeAction } from "./safe-action";

/** The queue's confirmation: the dry run's token starts a tracked job (decision 065). */
export const startCaseBulkJobAction = safeAction(bulkJobStartSchema, (input, actor) =>
  startCaseBulkJob(db(), actor, input),
);

/** Finance's dry run of a bulk settle or release of resolved cases' open holds. */
export const dryRunHoldBulkAction = safeAction(holdBulkDryRunSchema, (input, actor) =>
  dryRunHoldBulk(db(), actor, input),
);

export const startHoldBulkJobAction = safeAction(holdBulkStartSchema, (input, actor) =>
  startHoldBulkJob(db(), actor, input),
);

/** The job panel's poll. */
export const readBulkJobAction = safeAction(bulkJobRefSchema, (input, actor) => getBulkJob(db(), actor, input.jobId));

export const cancelBulkJobAction = safeAction(bulkJobRefSchema, (input, actor) =>
  cancelBulkJob(db(), actor, input.jobId),
);
