import type { Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import type { Principal } from "@/lib/domain/principal";
import { can } from "@/lib/domain/roles";
import { AppError } from "@/lib/errors";
import { requirePermission } from "../access/actor";
import { loadCase, transitionCase } from "./transition-case";

/** Assigns an open case to an active reviewer (or clears the assignment with `null`). */
export async function assignCase(db: Db, actor: Principal, caseId: string, input: { assigneeId: string | null }) {
  const user = requirePermission(actor, "case:assign");
  return inTransaction(db, async (tx) => {
    if (input.assigneeId) {
      const assignee = await tx.user.findUnique({ where: { id: input.assigneeId } });
      if (!assignee?.active || !can(assignee.roles, "case:approve")) {
        throw new AppError("invalid_request", "Cases can only be assigned to an active reviewer.");
      }
    }
    const row = await loadCase(tx, caseId);
    await transitionCase(tx, {
      row,
      actor: user,
      command: { type: "assign", assigneeId: input.assigneeId },
      evidence: { assigneeId: input.assigneeId, previousAssigneeId: row.assigneeId },
      extra: { assigneeId: input.assigneeId },
    });
    return { caseId, assigneeId: input.assigneeId };
  });
}
