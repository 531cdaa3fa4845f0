import type { PrismaClient } from "../../../lib/db/client";

/**
 * Test data only: moves a hold's ledger entries to another time. The ledger is append-only for
 * every role, so this runs as the owner (openOwnerDb) with the append-only trigger switched off
 * for this one transaction; the figure triggers on the table stay on and see the change.
 */
export async function backdateLedger(owner: PrismaClient, holdRef: string, at: Date | string): Promise<void> {
  await owner.$transaction([
    owner.$executeRawUnsafe("ALTER TABLE ledger_entries DISABLE TRIGGER ledger_entries_no_update_delete"),
    owner.$executeRaw`UPDATE ledger_entries SET created_at = ${new Date(at)} WHERE hold_ref = ${holdRef}::uuid`,
    owner.$executeRawUnsafe("ALTER TABLE ledger_entries ENABLE TRIGGER ledger_entries_no_update_delete"),
  ]);
}
