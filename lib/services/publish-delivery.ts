import type { Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import type { Principal } from "@/lib/domain/principal";
import { requireWorker } from "./actor";
import { enqueueNotification } from "./enqueue-notification";
import type { FinishOutcome } from "./finish-action";
import { type ClaimProof, lockHeldClaim } from "./lease-guard";
import {
  DELIVERED_EVENT,
  deliveredEvidence,
  deliveredPayload,
  publishInOneStatement,
  type StoredOutput,
} from "./publish-delivery-at-once";
import { loadCase, transitionCase } from "./transition-case";

export type { StoredOutput };

/**
 * Publishes verified files and resolves the case in one transaction, only while this claim is
 * still held: a late, stale worker (older fencing token) finds no claim and publishes nothing,
 * whatever it managed to store. The producer's notification is queued in the same transaction.
 */
export async function publishDelivery(
  db: Db,
  actor: Principal,
  proof: ClaimProof,
  outputs: StoredOutput[],
): Promise<FinishOutcome> {
  const worker = requireWorker(actor);
  const fast = await publishInOneStatement(db, worker, proof, outputs);
  if (fast !== "fall_back") return fast;
  return inTransaction(db, async (tx) => {
    const claim = await lockHeldClaim(tx, { ...proof, workerId: worker.workerId });
    if (!claim) return "lost_claim";
    const row = await loadCase(tx, claim.caseId);
    const now = new Date();
    for (const output of outputs) {
      await tx.asset.create({
        data: {
          caseId: row.id,
          attemptRef: row.attemptRef,
          actionId: proof.actionId,
          fencingToken: BigInt(proof.fencingToken),
          outputIndex: output.outputIndex,
          storageKey: output.storageKey,
          sha256: output.sha256,
          sizeBytes: BigInt(output.size),
          contentType: output.contentType ?? null,
          publishedAt: now,
        },
      });
    }
    await tx.recoveryAction.update({
      where: { id: proof.actionId },
      data: { status: "succeeded", outcome: "delivered", leaseOwner: null, leaseUntil: null, finishedAt: now },
    });
    await tx.case.update({ where: { id: row.id }, data: { deliveryAttempts: { increment: 1 } } });
    await transitionCase(tx, {
      row: await loadCase(tx, row.id),
      actor: worker,
      command: { type: "finish_resolved" },
      evidence: deliveredEvidence(outputs),
      extra: { outcome: "delivered" },
    });
    await enqueueNotification(tx, {
      producer: row.producer,
      caseId: row.id,
      type: DELIVERED_EVENT,
      data: deliveredPayload(row, outputs),
    });
    return "resolved";
  });
}
