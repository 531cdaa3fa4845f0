import type { Prisma } from "@/lib/db/client";
import type { UserActor } from "../access/actor";
import { recordDecision } from "./record-decision";
import { type CaseRow, type ChangeVia, loadCase, transitionCase } from "./transition-case";

type CloseInput = { type: "accept_failure" | "accept_outputs_lost"; outcome: string; evidence: string };

/**
 * A reviewer's closing decision (a failure accepted, outputs accepted as lost): the case moves with
 * its outcome and the decision is recorded in the caller's transaction. The hold is never touched
 * here: finance decides it separately (rule 6).
 */
export async function closeCase(
  tx: Prisma.TransactionClient,
  user: UserActor,
  caseId: string,
  input: CloseInput,
): Promise<{ row: CaseRow; state: string }> {
  const row = await loadCase(tx, caseId, user);
  return { row, state: await closeLoaded(tx, user, row, input) };
}

/** The same for a case already read in the caller's transaction; returns the state it ends in. */
export async function closeLoaded(
  tx: Prisma.TransactionClient,
  user: UserActor,
  row: CaseRow,
  input: CloseInput,
  via?: ChangeVia,
): Promise<string> {
  const result = await transitionCase(tx, {
    row,
    actor: user,
    command: { type: input.type, evidence: input.evidence },
    evidence: { text: input.evidence, ...via },
    extra: { outcome: input.outcome },
  });
  await recordDecision(tx, { row, actor: user, kind: input.type, evidence: input.evidence });
  return result.after.state;
}
