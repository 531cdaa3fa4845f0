import type { Db } from "@/lib/db/client";

/**
 * A provider's charge that no hold paid for, which finance explained as made outside the product
 * (decision 074): its own entry with no hold, naming its provider, currency and usage line, so the
 * ledger equals the imported invoice. Once per line (the ledger's usage-line key), never an edit
 * (DESIGN rule 15). False, having written nothing, when the line was booked already; nothing is
 * booked for a zero line.
 */
export async function bookOutsideCharge(
  tx: Db,
  input: {
    provider: string;
    currency: string;
    usageLineRef: string;
    amountMicros: bigint;
    note: string;
    actorLabel: string;
  },
): Promise<boolean> {
  if (input.amountMicros === 0n) return false;
  const { count } = await tx.ledgerEntry.createMany({
    data: [
      {
        holdRef: null,
        kind: "outside_charge",
        provider: input.provider,
        currency: input.currency,
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
