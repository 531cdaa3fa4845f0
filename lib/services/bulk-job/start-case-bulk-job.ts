import type { Db } from "@/lib/db/client";
import { BULK_VERB_PERMISSION } from "@/lib/domain/bulk-verbs";
import type { Principal } from "@/lib/domain/principal";
import type { BulkJobStartInput } from "@/lib/validation/bulk";
import { requirePermission } from "../access/actor";
import { checkAssignee } from "../case/assign-case";
import { takePreview } from "../case/bulk-cases";
import { createBulkJob } from "./create-bulk-job";

/**
 * The console's execution of a bulk verb (decisions 032, 065): the same token checks as
 * `executeBulk` (this user's dry run, this very request, unused, in time; a stale one is refused
 * before anything changes), then a job of exactly the previewed cases at the versions read.
 */
export async function startCaseBulkJob(db: Db, actor: Principal, input: BulkJobStartInput) {
  const user = requirePermission(actor, BULK_VERB_PERMISSION[input.action.verb]);
  if (input.action.verb === "assign") await checkAssignee(db, input.action.assigneeId);
  const preview = await takePreview(db, user.userId, input, new Date());
  return createBulkJob(db, user, {
    kind: "cases",
    previewId: preview.id,
    action: input.action,
    items: preview.cases,
    previewSkipped: preview.skipped,
    pace: input.pace,
  });
}
