import type { Prisma } from "@/lib/db/client";
import type { LedgerEntryPlan } from "@/lib/domain/holds";

/** The ledger entries a hold's resolution planned (lib/domain/holds.ts), booked with one note and actor. */
export async function bookEntries(
  tx: Prisma.TransactionClient,
  input: { holdRef: string; entries: readonly LedgerEntryPlan[]; note: string; actorLabel: string },
): Promise<void> {
  for (const entry of input.entries) {
    await tx.ledgerEntry.create({
      data: {
        holdRef: input.holdRef,
        kind: entry.kind,
        amountMicros: BigInt(entry.amountMicros),
        flagged: entry.flagged,
        note: input.note,
        actorLabel: input.actorLabel,
      },
    });
  }
}
