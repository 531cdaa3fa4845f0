import type { Db, Prisma } from "@/lib/db/client";
import type { CaseCommand, CaseSnapshot } from "@/lib/domain/case-commands";
import type { Principal } from "@/lib/domain/principal";
import { decide } from "@/lib/domain/transitions";
import { AppError } from "@/lib/errors";
import { requireCaseInScope } from "../access/actor";
import { ownershipRule } from "./ownership-rule";
import { applyCaseChange, snapshotOf } from "./writer/change";

export type CaseRow = Prisma.CaseGetPayload<object>;

/** Names the bulk action a change was part of, in its audit row's evidence (absent for a single change). */
export type ChangeVia = { bulkPreviewId: string } | undefined;

/** The case as `actor` may see it: a case outside a person's producers does not exist for them (decision 035). */
export async function loadCase(tx: Db, caseId: string, actor: Principal): Promise<CaseRow> {
  const row = await tx.case.findUnique({ where: { id: caseId } });
  if (!row) throw new AppError("not_found", "No such case.");
  requireCaseInScope(actor, row.producer);
  return row;
}

/**
 * A case change for services that read and write in several steps inside a transaction: the pure
 * decision says whether and to what, and the case writer compares-and-sets it on (state, version)
 * with its audit row. A concurrent change makes the update match nothing, which surfaces as
 * `lost_race`, never as a silent no-op.
 */
export async function transitionCase(
  tx: Db,
  input: {
    row: CaseRow;
    command: CaseCommand;
    actor: Principal;
    evidence?: Prisma.InputJsonValue;
    extra?: Prisma.CaseUncheckedUpdateManyInput;
    /** What the caller read elsewhere that the decision depends on (the last check's finding, decision 068). */
    findings?: Pick<CaseSnapshot, "jobUnknown">;
  },
): Promise<{ before: CaseSnapshot; after: CaseSnapshot; version: number }> {
  const { row, command, actor } = input;
  requireCaseInScope(actor, row.producer);
  await refuseIfOwnedBySomeoneElse(tx, row, command, actor);
  const before: CaseSnapshot = { ...snapshotOf(row), ...input.findings };
  const decision = decide(before, command);
  if (!decision.ok) throw decision.error;
  const { version } = await applyCaseChange(tx, {
    seen: { ...row, caseId: row.id },
    command: command.type,
    decision,
    actor,
    evidence: input.evidence ?? null,
    ...(input.extra ? { extra: input.extra } : {}),
  });
  return { before, after: decision.next, version };
}

/**
 * While assignment means ownership, a decision on a case assigned to someone else is refused, with
 * who to ask. A reassignment meanwhile changes the case's version, so the compare-and-set catches it.
 */
async function refuseIfOwnedBySomeoneElse(tx: Db, row: CaseRow, command: CaseCommand, actor: Principal) {
  if (!row.assigneeId || !(await ownershipRule(tx, actor)(command.type, row.assigneeId))) return;
  const assignee = await tx.user.findUnique({ where: { id: row.assigneeId }, select: { name: true, email: true } });
  throw new AppError(
    "assigned_to_someone_else",
    `This case is assigned to ${assignee?.name ?? assignee?.email ?? "someone else"}: while assignment means ownership, only they or an admin decide it.`,
  );
}
