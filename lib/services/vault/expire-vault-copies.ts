import type { Db } from "@/lib/db/client";
import type { AssetStorage } from "@/lib/storage/types";

/**
 * The vault's copies kept past their `keep_until` (the policy's keep period from the copy) end here,
 * a batch per retention run (DESIGN rule 20): the row says removed first, then the file goes. A file
 * storage will not remove now is no longer named by any kept copy, so the orphan sweep finds it.
 * A case that delivered from a copy has its own asset by then; the copy was only ever a spare.
 */
export async function expireVaultCopies(
  db: Db,
  storage: AssetStorage,
  now: Date,
  batch: number,
): Promise<{ removed: number; errors: string[] }> {
  const rows = await db.$queryRaw<{ storage_key: string }[]>`
    UPDATE vault_copies SET status = 'removed', removed_at = ${now}
    WHERE id IN (SELECT id FROM vault_copies WHERE status = 'copied' AND keep_until <= ${now}
                 ORDER BY keep_until LIMIT ${batch} FOR UPDATE SKIP LOCKED)
    RETURNING storage_key`;
  const errors: string[] = [];
  for (const { storage_key: key } of rows) {
    await storage.remove(key).catch((error: unknown) => {
      errors.push(`${key}: ${error instanceof Error ? error.message : String(error)}`);
    });
  }
  return { removed: rows.length, errors };
}

/** Of `keys`, those a kept vault copy names: the orphan sweep leaves them to the copy's own end. */
export async function keptVaultKeys(db: Db, keys: string[]): Promise<string[]> {
  if (keys.length === 0) return [];
  const rows = await db.vaultCopy.findMany({
    where: { storageKey: { in: keys }, status: "copied" },
    select: { storageKey: true },
  });
  return rows.flatMap((row) => (row.storageKey ? [row.storageKey] : []));
}
