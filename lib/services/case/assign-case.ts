import type { Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import type { Principal } from "@/lib/domain/principal";
import { inProducerScope, scopeFromColumn } from "@/lib/domain/producer-scope";
import { can } from "@/lib/domain/roles";
import { AppError } from "@/lib/errors";
import { requirePermission, type UserActor } from "../access/actor";
import { type CaseRow, type ChangeVia, loadCase, transitionCase } from "./transition-case";

/** What an assignment carries: who (null clears it) and, optionally, why (kept in its timeline entry). */
export type AssignInput = { assigneeId: string | null; reason?: string | undefined };

/** Assigns an open case to an active reviewer (or clears the assignment with `null`). */
export async function assignCase(db: Db, actor: Principal, caseId: string, input: AssignInput) {
  const user = requirePermission(actor, "case:assign");
  return inTransaction(db, async (tx) => {
    const row = await loadCase(tx, caseId, user);
    await checkAssignee(tx, input.assigneeId);
    await assignLoaded(tx, user, row, input);
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

/**
 * A case goes only to someone who may see it: a person limited to other producers cannot take it
 * (decision 035). Answers the name the timeline shows for them.
 */
async function requireAssigneeSees(tx: Db, assigneeId: string, producer: string): Promise<string> {
  const assignee = await tx.user.findUnique({
    where: { id: assigneeId },
    select: { producerScope: true, name: true, email: true },
  });
  if (!assignee || !inProducerScope(scopeFromColumn(assignee.producerScope), producer))
    throw new AppError("invalid_request", "This reviewer works for other producers and cannot take this case.");
  return assignee.name || assignee.email;
}

/**
 * The assignment of a case already read in the caller's transaction: one audit row, naming the
 * assignee and carrying the reason, so the timeline shows one entry per assignment (decision 057).
 */
export async function assignLoaded(
  tx: Db,
  user: UserActor,
  row: CaseRow,
  input: AssignInput,
  via?: ChangeVia,
): Promise<void> {
  const assigneeName = input.assigneeId ? await requireAssigneeSees(tx, input.assigneeId, row.producer) : null;
  const reason = input.reason?.trim() ? { reason: input.reason } : {};
  await transitionCase(tx, {
    row,
    actor: user,
    command: { type: "assign", assigneeId: input.assigneeId },
    evidence: { assigneeId: input.assigneeId, assigneeName, previousAssigneeId: row.assigneeId, ...reason, ...via },
    extra: { assigneeId: input.assigneeId },
  });
}
