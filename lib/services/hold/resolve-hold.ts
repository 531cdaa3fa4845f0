import { recordAudit } from "@/lib/audit/writer";
import type { Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import { planRelease, planSettle } from "@/lib/domain/holds";
import { actorColumns, type Principal } from "@/lib/domain/principal";
import { sanitiseString } from "@/lib/domain/sanitise";
import { AppError } from "@/lib/errors";
import { requireCaseInScope, requirePermission } from "../access/actor";
import { releaseHeldMicros } from "../case/writer/facts";
import { applyWaitingLines } from "./apply-waiting-lines";
import { refuseUnchargedResolution } from "./send-outcome-of-hold";
import { resolve } from "./writer/resolve";

export type HoldDecision =
  | { kind: "settle"; chargeMicros: number; note: string; evidence: string }
  | { kind: "release"; note: string; evidence: string }
  /** DESIGN rule 18: a release that is allowed while the send's outcome is unknown, for a reason. */
  | { kind: "write_off"; note: string; evidence: string };

const AUDIT_KIND = { settle: "hold_settled", release: "hold_released", write_off: "hold_written_off" } as const;

/**
 * Rules 6 and 7: only finance resolves a hold, with an accounting note and evidence, exactly once.
 * The status update is a compare-and-set on `held`, and the ledger's (hold, kind) uniqueness
 * refuses a second settle or release even if a bug slipped past it.
 */
export async function resolveHold(db: Db, actor: Principal, holdRef: string, decision: HoldDecision) {
  const user = requirePermission(actor, "hold:decide");
  const note = sanitiseString(decision.note, 4000);
  const evidence = sanitiseString(decision.evidence, 4000);
  return inTransaction(db, async (tx) => {
    const hold = await tx.hold.findUnique({
      where: { id: holdRef },
      include: { case: { select: { episode: true } }, attempt: { select: { operationRef: true } } },
    });
    if (!hold) throw new AppError("not_found", "No such hold.");
    requireCaseInScope(user, hold.producer, "hold");
    const snapshot = { amountMicros: Number(hold.amountMicros), status: hold.status };
    const plan = decision.kind === "settle" ? planSettle(snapshot, decision.chargeMicros) : planRelease(snapshot);
    if (!plan.ok) throw plan.error;
    if (decision.kind !== "settle") await refuseUnchargedResolution(tx, hold, decision.kind);
    const resolved = await resolve(tx, {
      holdRef: hold.id,
      amountMicros: hold.amountMicros,
      plan: plan.value,
      note,
      decidedById: user.userId,
      actorLabel: actorColumns(user).actorLabel,
      writtenOff: decision.kind === "write_off",
    });
    if (!resolved) throw new AppError("conflict", "This hold was already resolved by someone else.");
    // A send permit's hold that never parked (the provider refused the send) has no case to update.
    if (hold.caseId) await releaseHeldMicros(tx, hold.caseId, hold.amountMicros);
    await recordAudit(tx, {
      actor: user,
      kind: AUDIT_KIND[decision.kind],
      caseId: hold.caseId,
      operationRef: hold.attempt.operationRef,
      episode: hold.case?.episode ?? null,
      before: { holdId: hold.holdId, status: "held", amountMicros: Number(hold.amountMicros) },
      after: { status: plan.value.status, entries: plan.value.entries.map((entry) => ({ ...entry })) },
      evidence: { note, evidence },
    });
    // A usage line that waited for this hold's outcome now corrects finance's figure to the provider's (decision 077).
    await applyWaitingLines(tx, user, { holdRef: hold.id });
    return { holdId: hold.id, status: plan.value.status, entries: plan.value.entries };
  });
}
