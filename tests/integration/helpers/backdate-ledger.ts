import type { PrismaClient } from "@/lib/db/client";

export type Backdating = { holdRef: string; at: Date | string };

/**
 * Test data only: moves holds' ledger entries to other times. The ledger is append-only for every
 * role, so this runs as the owner (openOwnerDb) with the append-only trigger switched off for this
 * one transaction; the figure triggers on the table stay on and see the change. One transaction for
 * the whole list: each ALTER TABLE is a catalog change, slow to commit on a busy server.
 */
export async function backdateLedger(owner: PrismaClient, moves: readonly Backdating[]): Promise<void> {
  await owner.$transaction([
    owner.$executeRawUnsafe("ALTER TABLE ledger_entries DISABLE TRIGGER ledger_entries_no_update_delete"),
    ...moves.map(
      ({ holdRef, at }) =>
        owner.$executeRaw`UPDATE ledger_entries SET created_at = ${new Date(at)} WHERE hold_ref = ${holdRef}::uuid`,
    ),
    owner.$executeRawUnsafe("ALTER TABLE ledger_entries ENABLE TRIGGER ledger_entries_no_update_delete"),
  ]);
}
