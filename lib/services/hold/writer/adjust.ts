import type { Db } from "@/lib/db/client";

/**
 * The difference between a provider's real charge and what the ledger charged a hold, as its own
 * entry naming the usage line that proved it (decision 073): signed, once per line (the ledger's
 * usage-line key), never an edit of an earlier entry (DESIGN rule 15). False, having written
 * nothing, when that line's adjustment was booked already; nothing is booked for a zero difference.
 */
export async function bookAdjustment(
  tx: Db,
  input: { holdRef: string; usageLineRef: string; amountMicros: bigint; note: string; actorLabel: string },
): Promise<boolean> {
  if (input.amountMicros === 0n) return false;
  const { count } = await tx.ledgerEntry.createMany({
    data: [
      {
        holdRef: input.holdRef,
        kind: "adjustment",
        amountMicros: input.amountMicros,
        usageLineRef: input.usageLineRef,
        note: input.note,
        actorLabel: input.actorLabel,
      },
    ],
    skipDuplicates: true,
  });
  return count > 0;
}
