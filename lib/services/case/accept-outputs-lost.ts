import type { Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import type { Principal } from "@/lib/domain/principal";
import { requirePermission } from "../access/actor";
import { enqueueNotification } from "../notification/enqueue-notification";
import { closeCase } from "./close-case";

export const OUTPUTS_LOST_EVENT = "case.outputs_lost";

/**
 * Closes a delivery whose outputs the provider deleted before a copy succeeded. The charge was made,
 * so the hold is not touched: it stays held until finance settles it (rule 6, rule 13). The producer
 * learns the outcome from a signed webhook written in the same transaction.
 */
export async function acceptOutputsLost(db: Db, actor: Principal, caseId: string, input: { evidence: string }) {
  const user = requirePermission(actor, "case:accept_failure");
  return inTransaction(db, async (tx) => {
    const { row, state } = await closeCase(tx, user, caseId, {
      type: "accept_outputs_lost",
      outcome: "outputs_lost",
      evidence: input.evidence,
    });
    await enqueueNotification(tx, {
      producer: row.producer,
      caseId,
      type: OUTPUTS_LOST_EVENT,
      data: {
        caseId,
        operationId: row.operationId,
        attemptId: row.attemptId,
        providerJobId: row.providerJobId,
        outcome: "outputs_lost",
      },
    });
    return { caseId, state, outcome: "outputs_lost" as const };
  });
}
