import type { Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import type { CaseCommand } from "@/lib/domain/case-commands";
import type { Principal } from "@/lib/domain/principal";
import { requireWorker } from "./actor";
import { type ClaimProof, heldClaim } from "./lease-guard";
import { loadCase, transitionCase } from "./transition-case";

export type FinishResult =
  | { kind: "resolved" }
  | { kind: "unresolved"; evidence: string }
  | { kind: "moved"; stage: "delivery" | "generation_failed"; evidence: string };

export type FinishOutcome = "resolved" | "parked" | "lost_claim";

/**
 * Ends a claimed action. The first write is guarded by owner, fencing token and a live lease; if it
 * matches nothing the worker lost its claim (expired, rescued, or re-claimed by someone else) and
 * nothing at all is written.
 */
export async function finishAction(
  db: Db,
  actor: Principal,
  proof: ClaimProof,
  result: FinishResult,
): Promise<FinishOutcome> {
  const worker = requireWorker(actor);
  return inTransaction(db, async (tx) => {
    const action = await tx.recoveryAction.findFirst({ where: heldClaim(proof), select: { caseId: true } });
    const { count } = await tx.recoveryAction.updateMany({
      where: heldClaim(proof),
      data: {
        status: result.kind === "resolved" ? "succeeded" : "unresolved",
        outcome: result.kind,
        leaseOwner: null,
        leaseUntil: null,
        finishedAt: new Date(),
      },
    });
    if (count === 0 || !action) return "lost_claim";
    const command: CaseCommand =
      result.kind === "resolved"
        ? { type: "finish_resolved" }
        : result.kind === "unresolved"
          ? { type: "finish_unresolved", evidence: result.evidence }
          : { type: "move_stage", stage: result.stage, evidence: result.evidence };
    const row = await loadCase(tx, action.caseId);
    const { after } = await transitionCase(tx, {
      row,
      actor: worker,
      command,
      evidence: { ...result, actionId: proof.actionId, fencingToken: proof.fencingToken },
      ...(result.kind === "resolved" ? { extra: { outcome: "recovered" } } : {}),
    });
    return after.state === "resolved" ? "resolved" : "parked";
  });
}
