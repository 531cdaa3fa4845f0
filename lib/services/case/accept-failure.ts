import type { Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import type { Principal } from "@/lib/domain/principal";
import { requirePermission } from "../access/actor";
import { closeCase } from "./close-case";

/** Closes a proven failure. The hold is not touched: finance decides it separately (rule 6). */
export async function acceptFailure(db: Db, actor: Principal, caseId: string, input: { evidence: string }) {
  const user = requirePermission(actor, "case:accept_failure");
  return inTransaction(db, async (tx) => {
    const { state } = await closeCase(tx, user, caseId, {
      type: "accept_failure",
      outcome: "failure_accepted",
      evidence: input.evidence,
    });
    return { caseId, state };
  });
}
