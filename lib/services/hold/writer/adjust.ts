import type { Db, Prisma } from "@/lib/db/client";

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
  return bookLineEntry(tx, { ...input, kind: "adjustment" });
}

/**
 * An entry that names the usage line it books (an adjustment, or an outside charge: decision 074),
 * once per line by the ledger's usage-line key; nothing for a zero amount. False when not written.
 */
export async function bookLineEntry(
  tx: Db,
  entry: Prisma.LedgerEntryCreateManyInput & { usageLineRef: string; amountMicros: bigint },
): Promise<boolean> {
  if (entry.amountMicros === 0n) return false;
  const { count } = await tx.ledgerEntry.createMany({ data: [entry], skipDuplicates: true });
  return count > 0;
}

/**
 * The adjustments a usage line booked on a hold, reversed when the line's job moved to the send
 * that made it (decision 084): each by an adjustment of the opposite sign naming the same line and
 * the entry it reverses, once (the ledger's reversal key), never an edit. What the line decided
 * beyond an adjustment (a settle while the hold was held, a charge after release) was a resolution
 * and stays. Returns what the hold's charge moved by.
 */
export async function reverseLineAdjustments(
  tx: Db,
  input: { holdRef: string; usageLineRef: string; note: string; actorLabel: string },
): Promise<bigint> {
  const { holdRef, usageLineRef, note, actorLabel } = input;
  const open = await tx.ledgerEntry.findMany({
    where: { holdRef, usageLineRef, kind: "adjustment", reversesEntryRef: null, reversedBy: null },
    select: { id: true, amountMicros: true },
  });
  let moved = 0n;
  for (const entry of open) {
    const { count } = await tx.ledgerEntry.createMany({
      data: [
        {
          holdRef,
          usageLineRef,
          kind: "adjustment",
          reversesEntryRef: entry.id,
          amountMicros: -entry.amountMicros,
          note,
          actorLabel,
        },
      ],
      skipDuplicates: true,
    });
    if (count > 0) moved -= entry.amountMicros;
  }
  return moved;
}
