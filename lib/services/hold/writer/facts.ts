import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";

// Writes to a hold that move no money: which case holds it, and its note's redaction. The amounts,
// the status and the ledger change only through reserve.ts and resolve.ts.

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
