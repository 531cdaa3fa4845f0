import type { Prisma } from "@/lib/db/client";
import type { BulkAction } from "@/lib/domain/bulk-verbs";
import { permittedRecoveryAction } from "@/lib/domain/stages";
import type { UserActor } from "../access/actor";
import { acceptFailureLoaded } from "./accept-failure";
import { addNoteLoaded } from "./add-note";
import { approveLoaded } from "./approve-case";
import { assignLoaded } from "./assign-case";
import { reviewLoaded } from "./review-case";
import type { CaseRow, ChangeVia } from "./transition-case";

/**
 * One case of a bulk action, through the verb's own single-case service (its decision, its decision
 * row, its audit row), in the caller's transaction on the row it read. A refusal throws as it would
 * for one case; the bulk action reports it as the case's reason to be skipped.
 */
export async function applyBulkAction(
  tx: Prisma.TransactionClient,
  user: UserActor,
  row: CaseRow,
  action: BulkAction,
  via: ChangeVia,
  storePrompts = false,
): Promise<void> {
  switch (action.verb) {
    case "approve":
      await approveLoaded(
        tx,
        user,
        row,
        { action: permittedRecoveryAction(row.stage) ?? "none", evidence: action.evidence },
        via,
      );
      return;
    case "reject":
    case "escalate":
      return reviewLoaded(tx, user, row, { verdict: action.verb, evidence: action.evidence }, via);
    case "accept_failure":
      await acceptFailureLoaded(tx, user, row, { evidence: action.evidence }, via);
      return;
    case "assign":
      return assignLoaded(tx, user, row, { assigneeId: action.assigneeId }, via);
    case "note":
      return addNoteLoaded(tx, user, row, { text: action.text, storePrompts }, via);
  }
}
