import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";

// Writes to a hold that move no money: which case holds it, finance's decision on a charge after
// release, and the redaction of its notes. The amounts, the status and the ledger change only
// through reserve.ts, resolve.ts and late-charge.ts.

/** A send permit's hold joins the case its send parked as (it had none until then). */
export async function attachHoldToCase(tx: Db, input: { holdRef: string; caseId: string }): Promise<void> {
  await tx.hold.update({ where: { id: input.holdRef }, data: { caseId: input.caseId } });
}

/**
 * Retention's redaction of the hold notes of one case (decision 033); the ledger's notes are the
 * append-only history's, rewritten only by its own SQL function. Returns how many notes it replaced.
 */
export async function redactHoldNotes(tx: Db, input: { caseId: string; label: string }): Promise<number> {
  return tx.$executeRaw(Prisma.sql`
    UPDATE holds SET decision_note = ${input.label}
     WHERE case_id = ${input.caseId}::uuid AND decision_note IS NOT NULL AND decision_note <> ${input.label}`);
}

/** Retention's redaction of the notes on the holds of an operation's send permits (DESIGN rule 20). */
export async function redactPermitHoldNotes(tx: Db, input: { operationRef: string; label: string }): Promise<number> {
  return tx.$executeRaw(Prisma.sql`
    UPDATE holds SET decision_note = ${input.label}
     WHERE id IN (SELECT hold_ref FROM send_permits WHERE operation_ref = ${input.operationRef}::uuid)
       AND decision_note IS NOT NULL AND decision_note <> ${input.label}`);
}

/** Finance decided a charge after release (DESIGN rule 18): once, a compare-and-set on "charged, not decided". */
export async function decideLateCharge(
  tx: Db,
  input: { holdRef: string; decidedById: string; note: string; at: Date },
): Promise<boolean> {
  const { count } = await tx.hold.updateMany({
    where: { id: input.holdRef, lateChargedAt: { not: null }, lateChargeDecidedAt: null },
    data: { lateChargeDecidedAt: input.at, lateChargeDecidedById: input.decidedById, lateChargeNote: input.note },
  });
  return count > 0;
}
