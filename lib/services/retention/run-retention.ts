import { REDACTED_LABEL, redactedJson } from "@/lib/audit/canonical";
import type { Db, PrismaClient } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { inTransaction } from "@/lib/db/transaction";
import type { Principal } from "@/lib/domain/principal";
import { RETENTION_BATCH, RETENTION_INTERVAL_MS, retentionReason } from "@/lib/domain/retention";
import { increment } from "@/lib/metrics/counters";
import type { AssetStorage } from "@/lib/storage/types";
import { recordAudit } from "../case/writer/audit";
import { redactCaseRow } from "../case/writer/redaction";
import { redactHoldNotes } from "../hold/writer/facts";
import { type EligibleCase, eligibleCasesSql } from "./eligible-cases";

export type RetentionRun = {
  redacted: number;
  filesDeleted: number;
  fileErrors: string[];
  /** Stopped by its deadline or batch cap before a batch came back short: eligible cases may be left. */
  more: boolean;
};

/** How much one run may do: the caller's deadline, and optionally a number of batches. */
type RunLimits = { deadline: number; batch?: number; maxBatches?: number };

/**
 * Takes the retention run if it is due (one worker of any number running at once: the UPDATE that
 * moves next_run_at forward is the claim) and runs it; null when it was not due.
 */
export async function runRetentionIfDue(
  db: PrismaClient,
  storage: AssetStorage,
  actor: Principal & { kind: "worker" },
  options: { now?: Date } & RunLimits,
): Promise<RetentionRun | null> {
  const now = options.now ?? new Date();
  const next = new Date(now.getTime() + RETENTION_INTERVAL_MS);
  // An upsert, so a schedule row that is gone (a restored or emptied table) is due, not never.
  const taken = await db.$executeRaw`
    INSERT INTO retention_schedule (id, next_run_at, last_run_at) VALUES (true, ${next}, ${now})
    ON CONFLICT (id) DO UPDATE SET next_run_at = EXCLUDED.next_run_at, last_run_at = EXCLUDED.last_run_at
     WHERE retention_schedule.next_run_at <= ${now}`;
  if (taken === 0) return null;
  const run = await runRetention(db, storage, actor, { ...options, now });
  // A run cut short leaves the rest due at once, so a backlog drains on consecutive ticks instead
  // of one batch-load an hour; a run that finished waits the interval.
  await db.retentionSchedule.update({
    where: { id: true },
    data: { lastRedacted: run.redacted, ...(run.more ? { nextRunAt: now } : {}) },
  });
  return run;
}

/**
 * Redacts every eligible case, a batch per transaction, until none is left, the deadline passes or
 * `maxBatches` were done; then it says `more` (the next run picks up the rest). Safe to run twice: a
 * redacted case is not eligible.
 */
export async function runRetention(
  db: PrismaClient,
  storage: AssetStorage,
  actor: Principal,
  options: { now: Date } & RunLimits,
): Promise<RetentionRun> {
  const batch = options.batch ?? RETENTION_BATCH;
  const total: RetentionRun = { redacted: 0, filesDeleted: 0, fileErrors: [], more: true };
  // Files an earlier run could not remove go first: their rows already say the videos are deleted.
  await removeFiles(db, storage, await filesStillWaiting(db), total);
  for (let done = 0; Date.now() < options.deadline && done < (options.maxBatches ?? Number.POSITIVE_INFINITY); done++) {
    const { cases, keys } = await inTransaction(db, async (tx) => {
      const rows = await tx.$queryRaw<EligibleCase[]>(eligibleCasesSql({ now: options.now, limit: batch, lock: true }));
      const deleted: string[] = [];
      for (const row of rows) deleted.push(...(await redactCase(tx, actor, row, options.now)));
      return { cases: rows.length, keys: deleted };
    });
    total.redacted += cases;
    // The files go after the commit: a rolled-back batch must not have lost a video it still shows.
    await removeFiles(db, storage, keys, total);
    if (cases < batch) {
      total.more = false;
      break;
    }
  }
  return total;
}

/** Files whose rows were marked deleted but which storage has not confirmed removing, oldest first. */
async function filesStillWaiting(db: Db): Promise<string[]> {
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
async function removeFiles(db: Db, storage: AssetStorage, keys: string[], total: RetentionRun): Promise<void> {
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
  if (removed.length === 0) return;
  await db.asset.updateMany({ where: { storageKey: { in: removed } }, data: { fileRemovedAt: new Date() } });
  total.filesDeleted += removed.length;
}

/** One case's customer text replaced in place, its videos marked deleted; the keys to delete after commit. */
async function redactCase(tx: Db, actor: Principal, row: EligibleCase, now: Date): Promise<string[]> {
  const reason = retentionReason(row.days, now);
  const marker = JSON.stringify(redactedJson(reason));
  // The append-only history (audit text, and the ledger's notes: the hold notes' own words) is
  // rewritten only through the owner's functions, which check the case's period themselves.
  const [audit] = await tx.$queryRaw<{ n: number }[]>`SELECT audit_redact_case(${row.id}::uuid, ${reason}) AS n`;
  const [ledger] = await tx.$queryRaw<{ n: number }[]>`SELECT ledger_redact_case_notes(${row.id}::uuid) AS n`;
  const kase = await redactCaseRow(tx, { caseId: row.id, marker, now });
  const count = (sql: Prisma.Sql) => tx.$executeRaw(sql);
  const fields = {
    auditEvidence: audit?.n ?? 0,
    caseEvidence: 1,
    requestSummary: await count(Prisma.sql`
      UPDATE operations SET request_summary = ${marker}::jsonb
       WHERE id = ${kase.operationRef}::uuid AND request_summary IS NOT NULL`),
    decisionEvidence: await count(Prisma.sql`
      UPDATE decisions SET evidence = ${REDACTED_LABEL} WHERE case_id = ${row.id}::uuid AND evidence <> ${REDACTED_LABEL}`),
    replacementEvidence: await count(Prisma.sql`
      UPDATE replacement_requests SET evidence = ${REDACTED_LABEL}
       WHERE case_id = ${row.id}::uuid AND evidence <> ${REDACTED_LABEL}`),
    holdNotes: await redactHoldNotes(tx, { caseId: row.id, label: REDACTED_LABEL }),
    ledgerNotes: ledger?.n ?? 0,
    providerDetails: await count(Prisma.sql`
      UPDATE provider_observations SET detail = ${marker}::jsonb WHERE case_id = ${row.id}::uuid AND detail IS NOT NULL`),
    // A case with a notification still due is not eligible (it goes out first), so this is every
    // one of the case's; the condition only keeps a message that is somehow still due from going
    // out as a marker.
    notificationPayloads: await count(Prisma.sql`
      UPDATE notification_outbox SET payload = ${marker}::jsonb
       WHERE case_id = ${row.id}::uuid AND (delivered_at IS NOT NULL OR give_up_at IS NOT NULL)`),
  };
  const assets = await tx.$queryRaw<{ storage_key: string; size_bytes: bigint | null }[]>`
    UPDATE assets SET deleted_at = ${now} WHERE case_id = ${row.id}::uuid AND deleted_at IS NULL
    RETURNING storage_key, size_bytes`;
  // Written after the redaction, so its own record of what was redacted stays readable.
  await recordAudit(tx, {
    actor,
    kind: "case_redacted",
    caseId: row.id,
    episode: kase.episode,
    evidence: {
      reason,
      retentionDays: row.days,
      resolvedAt: row.resolved_at.toISOString(),
      fields,
      videosDeleted: assets.length,
      bytesDeleted: assets.reduce((sum, a) => sum + Number(a.size_bytes ?? 0), 0),
    },
  });
  return assets.map((a) => a.storage_key);
}
