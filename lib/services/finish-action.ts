import type { Db, Prisma } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import type { CaseCommand } from "@/lib/domain/case-commands";
import type { Principal } from "@/lib/domain/principal";
import { requireWorker } from "./actor";
import { type ClaimProof, lockHeldClaim } from "./lease-guard";
import { loadCase, transitionCase } from "./transition-case";

export type FinishResult =
  | { kind: "resolved" }
  | { kind: "unresolved"; evidence: string }
  | { kind: "moved"; stage: "delivery" | "generation_failed"; evidence: string }
  | { kind: "rescheduled"; evidence: string; nextCheckAt: Date }
  | { kind: "released" };

export type FinishOutcome = "resolved" | "parked" | "rescheduled" | "continued" | "released" | "lost_claim";

const COMMAND: { [K in FinishResult["kind"]]: (r: Extract<FinishResult, { kind: K }>) => CaseCommand } = {
  resolved: () => ({ type: "finish_resolved" }),
  unresolved: (r) => ({ type: "finish_unresolved", evidence: r.evidence }),
  moved: (r) => ({ type: "move_stage", stage: r.stage, evidence: r.evidence }),
  rescheduled: (r) => ({ type: "reschedule", evidence: r.evidence }),
  released: () => ({ type: "release_claim" }),
};

function actionUpdate(result: FinishResult): Prisma.RecoveryActionUpdateInput | null {
  const clearLease = { leaseOwner: null, leaseUntil: null };
  switch (result.kind) {
    case "resolved":
      return { ...clearLease, status: "succeeded", outcome: "resolved", finishedAt: new Date() };
    case "unresolved":
      return { ...clearLease, status: "unresolved", outcome: "unresolved", finishedAt: new Date() };
    case "moved":
      // Completion observed: the same claim goes on to deliver the video, so the action stays held.
      return result.stage === "delivery"
        ? null
        : { ...clearLease, status: "unresolved", outcome: "generation_failed", finishedAt: new Date() };
    case "rescheduled":
      return { ...clearLease, status: "ready", readyAt: result.nextCheckAt };
    case "released":
      return { ...clearLease, status: "ready" };
  }
}

/**
 * Ends (or hands back) a claimed action. The claim is locked first and must still be held by this
 * worker with this token and a live lease; otherwise the answer is `lost_claim` and nothing at all
 * is written.
 */
export async function finishAction(
  db: Db,
  actor: Principal,
  proof: ClaimProof,
  result: FinishResult,
  extra?: Prisma.CaseUncheckedUpdateManyInput,
): Promise<FinishOutcome> {
  const worker = requireWorker(actor);
  const held = { ...proof, workerId: worker.workerId };
  return inTransaction(db, async (tx) => {
    const claim = await lockHeldClaim(tx, held);
    if (!claim) return "lost_claim";
    const update = actionUpdate(result);
    if (update) await tx.recoveryAction.update({ where: { id: proof.actionId }, data: update });
    const row = await loadCase(tx, claim.caseId);
    const command = (COMMAND[result.kind] as (r: FinishResult) => CaseCommand)(result);
    const { after } = await transitionCase(tx, {
      row,
      actor: worker,
      command,
      evidence: { ...result, actionId: proof.actionId, fencingToken: proof.fencingToken },
      extra: { ...(result.kind === "resolved" ? { outcome: "recovered" } : {}), ...extra },
    });
    if (result.kind === "rescheduled") return "rescheduled";
    if (result.kind === "released") return "released";
    if (after.state === "resolved") return "resolved";
    return after.state === "claimed" ? "continued" : "parked";
  });
}
