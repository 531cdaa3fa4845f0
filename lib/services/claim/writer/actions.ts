import { Prisma } from "@/lib/db/generated/prisma/client";
import type { RecoveryActionKind } from "@/lib/domain/stages";

// The recovery actions' writes that belong beside a case change rather than under a claim: an
// approval creates its action, a disowned job supersedes the live one (decision 003: one writer per
// table; the claim folder owns recovery_actions). Callers in the case folder pass facts, not SQL.

type ApprovedAction = {
  caseId: string;
  decisionId: string;
  kind: RecoveryActionKind;
  /** Kept on a delivery retry, so the worker knows how long the provider still holds the outputs. */
  outputsExpireAt: Date | null;
};

/** The action an approval creates, in the approval's transaction. */
export async function createApprovedAction(tx: Prisma.TransactionClient, action: ApprovedAction): Promise<string> {
  const created = await tx.recoveryAction.create({
    data: {
      caseId: action.caseId,
      decisionId: action.decisionId,
      kind: action.kind,
      ...(action.kind === "retry_delivery" ? { outputsExpireAt: action.outputsExpireAt } : {}),
    },
    select: { id: true },
  });
  return created.id;
}

/**
 * The statement fragment a bulk approval composes: one action per row of the `decided` CTE (its
 * `id` the decision, its `case_id` the case), returning the cases that got one.
 */
export function approvedActionsInsert(decided: Prisma.Sql, kind: RecoveryActionKind): Prisma.Sql {
  return Prisma.sql`
      INSERT INTO recovery_actions (case_id, decision_id, kind, outputs_expire_at)
      SELECT d.case_id, d.id, ${kind}::"RecoveryActionKind",
             CASE WHEN ${kind}::text = 'retry_delivery' THEN c.outputs_expire_at END
      FROM ${decided} d JOIN cases c ON c.id = d.case_id
      RETURNING case_id`;
}

/** Ends a case's live action without running it (its job was shown to be another operation's). */
export async function supersedeLiveAction(
  tx: Prisma.TransactionClient,
  caseId: string,
  outcome: string,
): Promise<void> {
  await tx.recoveryAction.updateMany({
    where: { caseId, status: { in: ["ready", "claimed"] } },
    data: { status: "superseded", leaseOwner: null, leaseUntil: null, finishedAt: new Date(), outcome },
  });
}
