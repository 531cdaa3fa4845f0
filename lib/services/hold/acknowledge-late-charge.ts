import { recordAudit } from "@/lib/audit/writer";
import type { Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import type { Principal } from "@/lib/domain/principal";
import { sanitiseString } from "@/lib/domain/sanitise";
import { AppError } from "@/lib/errors";
import { requireCaseInScope, requirePermission } from "../access/actor";
import { decideLateCharge } from "./writer/facts";

/**
 * DESIGN rule 18: finance decides a charge after release (recovers it, books it, disputes it) and
 * says so; the flagged ledger entry stays, and the hold leaves the list of charges to decide.
 * Once per charge: the update is a compare-and-set on "charged and not decided".
 */
export async function acknowledgeLateCharge(db: Db, actor: Principal, holdRef: string, input: { note: string }) {
  const user = requirePermission(actor, "hold:decide");
  const note = sanitiseString(input.note, 4000);
  return inTransaction(db, async (tx) => {
    const hold = await tx.hold.findUnique({
      where: { id: holdRef },
      include: { case: { select: { episode: true } }, attempt: { select: { operationRef: true } } },
    });
    if (!hold) throw new AppError("not_found", "No such hold.");
    requireCaseInScope(user, hold.producer, "hold");
    if (!hold.lateChargedAt) throw new AppError("conflict", "This hold has no charge after release to decide.");
    const decidedAt = new Date();
    const decided = await decideLateCharge(tx, { holdRef: hold.id, decidedById: user.userId, note, at: decidedAt });
    if (!decided) throw new AppError("conflict", "This charge after release was already decided.");
    await recordAudit(tx, {
      actor: user,
      kind: "late_charge_acknowledged",
      caseId: hold.caseId,
      operationRef: hold.attempt.operationRef,
      episode: hold.case?.episode ?? null,
      after: { holdId: hold.holdId, producer: hold.producer },
      evidence: { note },
    });
    return { holdId: hold.id, decidedAt: decidedAt.toISOString() };
  });
}
