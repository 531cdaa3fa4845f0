import type { Db, Prisma } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import type { Principal } from "@/lib/domain/principal";
import { requirePermission, type UserActor } from "../access/actor";
import { recordDecision } from "./record-decision";
import { type CaseRow, type ChangeVia, loadCase, transitionCase } from "./transition-case";

export type ReviewInput = { verdict: "reject" | "escalate"; evidence: string };

/** Reject (no recovery now) or escalate (needs someone else): recorded decisions, the case stays parked. */
export async function reviewCase(db: Db, actor: Principal, caseId: string, input: ReviewInput) {
  const user = requirePermission(actor, "case:approve");
  return inTransaction(db, async (tx) => {
    await reviewLoaded(tx, user, await loadCase(tx, caseId, user), input);
    return { caseId, verdict: input.verdict };
  });
}

/** The review of a case already read in the caller's transaction (one case, or one of a bulk action's). */
export async function reviewLoaded(
  tx: Prisma.TransactionClient,
  user: UserActor,
  row: CaseRow,
  input: ReviewInput,
  via?: ChangeVia,
): Promise<void> {
  await transitionCase(tx, {
    row,
    actor: user,
    command: { type: input.verdict, evidence: input.evidence },
    evidence: { text: input.evidence, ...via },
  });
  await recordDecision(tx, { row, actor: user, kind: input.verdict, evidence: input.evidence });
}
