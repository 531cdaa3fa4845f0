import type { Db, Prisma } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import type { Principal } from "@/lib/domain/principal";
import { requirePermission, type UserActor } from "../access/actor";
import { closeLoaded } from "./close-case";
import { type CaseRow, type ChangeVia, loadCase } from "./transition-case";

/** Closes a proven failure. The hold is not touched: finance decides it separately (rule 6). */
export async function acceptFailure(db: Db, actor: Principal, caseId: string, input: { evidence: string }) {
  const user = requirePermission(actor, "case:accept_failure");
  return inTransaction(db, async (tx) => {
    const state = await acceptFailureLoaded(tx, user, await loadCase(tx, caseId, user), input);
    return { caseId, state };
  });
}

/** The same for a case already read in the caller's transaction (one of a bulk action's). */
export function acceptFailureLoaded(
  tx: Prisma.TransactionClient,
  user: UserActor,
  row: CaseRow,
  input: { evidence: string },
  via?: ChangeVia,
): Promise<string> {
  return closeLoaded(
    tx,
    user,
    row,
    { type: "accept_failure", outcome: "failure_accepted", evidence: input.evidence },
    via,
  );
}
