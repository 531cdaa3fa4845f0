import type { Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import type { Principal } from "@/lib/domain/principal";
import { requirePermission } from "../access/actor";
import { recordDecision } from "./record-decision";
import { loadCase, transitionCase } from "./transition-case";

/** Closes a proven failure. The hold is not touched: finance decides it separately (rule 6). */
export async function acceptFailure(db: Db, actor: Principal, caseId: string, input: { evidence: string }) {
  const user = requirePermission(actor, "case:accept_failure");
  return inTransaction(db, async (tx) => {
    const row = await loadCase(tx, caseId);
    const result = await transitionCase(tx, {
      row,
      actor: user,
      command: { type: "accept_failure", evidence: input.evidence },
      evidence: { text: input.evidence },
      extra: { outcome: "failure_accepted" },
    });
    await recordDecision(tx, { row, actor: user, kind: "accept_failure", evidence: input.evidence });
    return { caseId, state: result.after.state };
  });
}
