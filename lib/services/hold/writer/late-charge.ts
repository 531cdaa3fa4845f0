import type { Db } from "@/lib/db/client";
import type { LedgerEntryPlan } from "@/lib/domain/holds";

/**
 * A completion proved after the hold's release (DESIGN rule 18): its flagged entry, once per hold
 * (the ledger's (hold, kind) key), and the hold marked charged until finance decides it. False,
 * having written nothing, when the hold was charged after release already.
 */
export async function bookLateCharge(
  tx: Db,
  input: { holdRef: string; plan: LedgerEntryPlan; note: string; actorLabel: string },
): Promise<boolean> {
  const { count } = await tx.ledgerEntry.createMany({
    data: [
      {
        holdRef: input.holdRef,
        kind: input.plan.kind,
        amountMicros: BigInt(input.plan.amountMicros),
        flagged: input.plan.flagged,
        note: input.note,
        actorLabel: input.actorLabel,
      },
    ],
    skipDuplicates: true,
  });
  if (count === 0) return false;
  await tx.hold.update({ where: { id: input.holdRef }, data: { lateChargedAt: new Date() } });
  return true;
}
