import type { Db } from "@/lib/db/client";
import { RETENTION_BATCH } from "@/lib/domain/retention";
import { increment } from "@/lib/metrics/counters";
import { processShared } from "@/lib/process-shared";
import type { AssetStorage } from "@/lib/storage/types";
import { keptVaultKeys } from "../vault/expire-vault-copies";

/** What a run reports of its files. */
type FileTally = { filesDeleted: number; fileErrors: string[] };

/** Files whose rows were marked deleted but which storage has not confirmed removing, oldest first. */
export async function filesStillWaiting(db: Db): Promise<string[]> {
  const rows = await db.asset.findMany({
    where: { deletedAt: { not: null }, fileRemovedAt: null },
    orderBy: { deletedAt: "asc" },
    select: { storageKey: true },
    take: RETENTION_BATCH,
  });
  return rows.map((row) => row.storageKey);
}

/**
 * Removes the files and records each removal on its row; a file storage refuses stays waiting for
 * the next run (counted, and named in the run's result), never forgotten.
 */
export async function removeFiles(db: Db, storage: AssetStorage, keys: string[], total: FileTally): Promise<void> {
  const removed = await removeEach(storage, keys, total);
  if (removed.length === 0) return;
  await db.asset.updateMany({ where: { storageKey: { in: removed } }, data: { fileRemovedAt: new Date() } });
  total.filesDeleted += removed.length;
}

/** The keys storage removed; each refusal is counted and named in the run's `fileErrors`. */
async function removeEach(storage: AssetStorage, keys: string[], total: FileTally): Promise<string[]> {
  const removed: string[] = [];
  for (const key of keys) {
    try {
      await storage.remove(key);
      removed.push(key);
    } catch (error) {
      increment("recovery_retention_file_errors_total");
      total.fileErrors.push(`${key}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return removed;
}

/** Where this process's orphan sweep goes on from; a restart starts at the beginning again. */
const sweep = processShared("retention-orphan-sweep", () => ({ after: undefined as string | undefined }));

/**
 * Files under the storage root that no asset row or kept vault copy (decision 075) names (a delivery cut short, a crashed write's
 * staging file) have no row for retention to work from, so they are found on disk (DESIGN rule 20).
 * One is removed once it is older than the shortest policy: no row names it, so no case, producer
 * or investigation can show it, and a write in flight is named by its reserved row (rule 12) or is
 * younger. A file any row names, deleted or not, is left to the row's own path.
 */
export async function removeOrphanFiles(
  db: Db,
  storage: AssetStorage,
  now: Date,
  total: FileTally,
  batch = RETENTION_BATCH,
): Promise<number> {
  const [policy] = await db.$queryRaw<{ days: number | null }[]>`SELECT min(days) AS days FROM retention_policies`;
  if (policy?.days == null) return 0;
  // Each run lists one page of old files after where the last one stopped, so old files that rows
  // still name (a case kept open for months) cannot hide the orphans listed after them.
  const limit = batch * 20;
  const old = await storage.listOlderThan(new Date(now.getTime() - policy.days * 86_400_000), limit, sweep.after);
  sweep.after = old.length === limit ? old[old.length - 1] : undefined;
  if (old.length === 0) return 0;
  const named = await db.asset.findMany({ where: { storageKey: { in: old } }, select: { storageKey: true } });
  const keep = new Set([...named.map((row) => row.storageKey), ...(await keptVaultKeys(db, old))]);
  return (
    await removeEach(
      storage,
      old.filter((key) => !keep.has(key)),
      total,
    )
  ).length;
}
