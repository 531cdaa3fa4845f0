import type { Db } from "@/lib/db/client";
import { bookLineEntry } from "./adjust";

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
  return bookLineEntry(tx, { ...input, holdRef: null, kind: "outside_charge" });
}
