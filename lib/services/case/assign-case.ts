import type { Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import type { Principal } from "@/lib/domain/principal";
import { can } from "@/lib/domain/roles";
import { AppError } from "@/lib/errors";
import { requirePermission, type UserActor } from "../access/actor";
import { type CaseRow, type ChangeVia, loadCase, transitionCase } from "./transition-case";

/** Assigns an open case to an active reviewer (or clears the assignment with `null`). */
export async function assignCase(db: Db, actor: Principal, caseId: string, input: { assigneeId: string | null }) {
  const user = requirePermission(actor, "case:assign");
  return inTransaction(db, async (tx) => {
    await checkAssignee(tx, input.assigneeId);
    await assignLoaded(tx, user, await loadCase(tx, caseId), input);
    return { caseId, assigneeId: input.assigneeId };
  });
}

/** Only an active reviewer can be given cases (checked once for a bulk assignment). */
export async function checkAssignee(db: Db, assigneeId: string | null): Promise<void> {
  if (!assigneeId) return;
  const assignee = await db.user.findUnique({ where: { id: assigneeId } });
  if (!assignee?.active || !can(assignee.roles, "case:approve")) {
    throw new AppError("invalid_request", "Cases can only be assigned to an active reviewer.");
  }
}

/** The assignment of a case already read in the caller's transaction. */
export async function assignLoaded(
  tx: Db,
  user: UserActor,
  row: CaseRow,
  input: { assigneeId: string | null },
  via?: ChangeVia,
): Promise<void> {
  await transitionCase(tx, {
    row,
    actor: user,
    command: { type: "assign", assigneeId: input.assigneeId },
    evidence: { assigneeId: input.assigneeId, previousAssigneeId: row.assigneeId, ...via },
    extra: { assigneeId: input.assigneeId },
  });
}
