import type { Db, Prisma } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import { isUniqueViolation } from "@/lib/db/unique-violation";
import type { Principal } from "@/lib/domain/principal";
import { isRecoveryActionKind } from "@/lib/domain/stages";
import { AppError } from "@/lib/errors";
import type { ApproveInput } from "@/lib/validation/review";
import { requirePermission, type UserActor } from "../access/actor";
import { createApprovedAction } from "../claim/writer/actions";
import { recordDecision } from "./record-decision";
import { type CaseRow, type ChangeVia, loadCase, transitionCase } from "./transition-case";

export type ApproveResult = { actionId: string; created: boolean };

/**
 * Rule 3: one decision, one action. Repeating the same approval returns the live action; a
 * different one is a conflict. Races are settled by the case's compare-and-set and by the unique
 * index on live actions per case: the loser re-reads and answers from what the winner wrote.
 */
export async function approveCase(
  db: Db,
  actor: Principal,
  caseId: string,
  input: ApproveInput,
): Promise<ApproveResult> {
  const user = requirePermission(actor, "case:approve");
  for (let attempt = 0; ; attempt++) {
    try {
      return await inTransaction(db, async (tx) => approveLoaded(tx, user, await loadCase(tx, caseId, user), input));
    } catch (error) {
      const raced = (error instanceof AppError && error.code === "lost_race") || isUniqueViolation(error);
      if (!raced || attempt >= 3) throw error;
    }
  }
}

/** The approval of a case already read in the caller's transaction (one case, or one of a bulk action's). */
export async function approveLoaded(
  tx: Prisma.TransactionClient,
  user: UserActor,
  row: CaseRow,
  input: ApproveInput,
  via?: ChangeVia,
): Promise<ApproveResult> {
  const caseId = row.id;
  const live = await tx.recoveryAction.findFirst({ where: { caseId, status: { in: ["ready", "claimed"] } } });
  if (live) {
    if (live.kind === input.action) return { actionId: live.id, created: false };
    throw new AppError("conflict", `A different recovery (${live.kind}) is already approved for this case.`);
  }
  await transitionCase(tx, {
    row,
    actor: user,
    command: { type: "approve", action: input.action, evidence: input.evidence },
    evidence: { text: input.evidence, action: input.action, ...via },
  });
  if (!isRecoveryActionKind(input.action)) throw new AppError("invalid_request", "Unknown recovery action.");
  const decision = await recordDecision(tx, {
    row,
    actor: user,
    kind: "approve",
    evidence: input.evidence,
    actionKind: input.action,
  });
  const actionId = await createApprovedAction(tx, {
    caseId,
    decisionId: decision.id,
    kind: input.action,
    outputsExpireAt: row.outputsExpireAt,
  });
  return { actionId, created: true };
}
