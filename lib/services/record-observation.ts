import type { Db, Prisma } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import { planSettle } from "@/lib/domain/holds";
import type { Principal } from "@/lib/domain/principal";
import { sanitise } from "@/lib/domain/sanitise";
import type { JobStatus } from "@/lib/providers/types";
import { actorColumns, requireWorker } from "./actor";
import { type ClaimProof, lockHeldClaim } from "./lease-guard";
import { recordAudit } from "./record-audit";
import {
  observedOutputs,
  recordInOneStatement,
  SETTLE_ENTRY_NOTE,
  SETTLE_EVIDENCE,
  SETTLE_NOTE,
} from "./record-observation-at-once";
import { loadCase, transitionCase } from "./transition-case";

/**
 * Records what a status check saw, under the claim. A completion is also the moment the charge is
 * certain: the attempt's hold is settled in full in the same transaction, and the case moves on
 * to delivery within the same claim. Returns false when the claim was lost (nothing written).
 */
export async function recordObservation(
  db: Db,
  actor: Principal,
  proof: ClaimProof,
  status: JobStatus,
): Promise<boolean> {
  const worker = requireWorker(actor);
  const fast = await recordInOneStatement(db, worker, proof, status);
  if (fast !== "fall_back") return fast;
  return inTransaction(db, async (tx) => {
    const claim = await lockHeldClaim(tx, { ...proof, workerId: worker.workerId });
    if (!claim) return false;
    const row = await loadCase(tx, claim.caseId);
    const detail = sanitise(status) as Prisma.InputJsonValue;
    await tx.providerObservation.create({
      data: {
        caseId: row.id,
        attemptRef: row.attemptRef,
        actionId: proof.actionId,
        fencingToken: BigInt(proof.fencingToken),
        kind: status.kind,
        providerStatus: "providerStatus" in status ? status.providerStatus : null,
        outputs: observedOutputs(status),
        detail,
      },
    });
    await tx.case.update({ where: { id: row.id }, data: { pollAttempts: { increment: 1 } } });
    if (status.kind !== "completed" || row.stage !== "polling") return true;
    await settleOnCompletion(tx, worker, row.attemptRef, row.id, row.episode);
    await transitionCase(tx, {
      row: await loadCase(tx, row.id),
      actor: worker,
      command: { type: "move_stage", stage: "delivery", evidence: `provider reports ${status.providerStatus}` },
      evidence: {
        text: `provider reports ${status.providerStatus}`,
        outputs: status.outputs.length,
        actionId: proof.actionId,
      },
    });
    return true;
  });
}

async function settleOnCompletion(
  tx: Prisma.TransactionClient,
  worker: Principal,
  attemptRef: string,
  caseId: string,
  episode: number,
) {
  const hold = await tx.hold.findUnique({ where: { attemptRef } });
  if (hold?.status !== "held") return;
  const plan = planSettle({ amountMicros: Number(hold.amountMicros), status: hold.status }, Number(hold.amountMicros));
  if (!plan.ok) throw plan.error;
  const { count } = await tx.hold.updateMany({
    where: { id: hold.id, status: "held" },
    data: {
      status: "settled",
      settledMicros: hold.amountMicros,
      resolvedAt: new Date(),
      decisionNote: SETTLE_NOTE,
    },
  });
  if (count === 0) return;
  for (const entry of plan.value.entries) {
    await tx.ledgerEntry.create({
      data: {
        holdRef: hold.id,
        kind: entry.kind,
        amountMicros: BigInt(entry.amountMicros),
        flagged: entry.flagged,
        note: SETTLE_ENTRY_NOTE,
        actorLabel: actorColumns(worker).actorLabel,
      },
    });
  }
  await tx.case.update({ where: { id: caseId }, data: { heldMicros: { decrement: hold.amountMicros } } });
  await recordAudit(tx, {
    actor: worker,
    kind: "hold_settled",
    caseId,
    episode,
    before: { holdId: hold.holdId, status: "held", amountMicros: Number(hold.amountMicros) },
    after: { status: "settled", entries: plan.value.entries.map((e) => ({ ...e })) },
    evidence: { text: SETTLE_EVIDENCE },
  });
}
