import { REDACTED_LABEL, redactedJson } from "@/lib/audit/canonical";
import { recordAudit } from "@/lib/audit/writer";
import type { Db, PrismaClient } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { inTransaction } from "@/lib/db/transaction";
import type { Principal } from "@/lib/domain/principal";
import { RETENTION_BATCH, RETENTION_INTERVAL_MS, retentionReason } from "@/lib/domain/retention";
import type { AssetStorage } from "@/lib/storage/types";
import { redactCaseRow } from "../case/writer/redaction";
import { forgetExpiredOutputUrls } from "../claim/output-urls";
import { redactHoldNotes } from "../hold/writer/facts";
import { expireVaultCopies } from "../vault/expire-vault-copies";
import { type EligibleCase, eligibleCasesSql } from "./eligible-cases";
import { redactEndedOperations, redactLooseWebhooks } from "./redact-operation";
import { redactOperationRecords } from "./redact-operation-records";
import { filesStillWaiting, removeFiles, removeOrphanFiles } from "./retention-files";

export type RetentionRun = {
  /** Cases redacted. */
  redacted: number;
  /** Operations that never became a case, redacted (DESIGN rule 20). */
  operations: number;
  /** Provider webhooks that matched nothing, their bodies redacted. */
  webhooks: number;
  /** Files on disk that no asset row names, removed once older than the shortest policy. */
  orphanFiles: number;
  /** Output vault copies past their keep period, removed (decision 075). */
  vaultCopiesRemoved: number;
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
  const total: RetentionRun = {
    redacted: 0,
    operations: 0,
    webhooks: 0,
    orphanFiles: 0,
    vaultCopiesRemoved: 0,
    filesDeleted: 0,
    fileErrors: [],
    more: true,
  };
  // Files an earlier run could not remove go first: their rows already say the videos are deleted.
  await removeFiles(db, storage, await filesStillWaiting(db), total);
  total.orphanFiles = await removeOrphanFiles(db, storage, options.now, total, batch);
  await forgetExpiredOutputUrls(db, options.now);
  // The vault's spare copies end after their own keep period, whatever the case policies say.
  const vault = await expireVaultCopies(db, storage, options.now, batch);
  total.vaultCopiesRemoved = vault.removed;
  total.fileErrors.push(...vault.errors);
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
  // Records that never became a case end under the same policies, after the cases (DESIGN rule 20).
  if (!total.more) {
    const rest = await redactEndedOperations(db, actor, { ...options, batch });
    total.operations = rest.operations;
    total.more = rest.more;
  }
  if (!total.more) {
    total.webhooks = await redactLooseWebhooks(db, { now: options.now, batch });
    // A full batch may leave more behind: the next tick goes on, as for cases and operations.
    total.more = total.webhooks === batch;
  }
  return total;
}

/** One case's customer text replaced in place, its videos marked deleted; the keys to delete after commit. */
async function redactCase(tx: Db, actor: Principal, row: EligibleCase, now: Date): Promise<string[]> {
  // The append-only history (audit text, and the ledger's notes: the hold notes' own words) is
  // rewritten only through the owner's functions, which judge the case by the owner's facts and
  // write the policy's own reason (decision 052); the other records carry the same marker.
  const [audit] = await tx.$queryRaw<{ redacted: number; reason: string }[]>`
    SELECT redacted, reason FROM audit_redact_case(${row.id}::uuid)`;
  const [ledger] = await tx.$queryRaw<{ n: number }[]>`SELECT ledger_redact_case_notes(${row.id}::uuid) AS n`;
  const reason = audit?.reason ?? retentionReason(row.days, now);
  const marker = JSON.stringify(redactedJson(reason));
  const kase = await redactCaseRow(tx, { caseId: row.id, marker, now });
  const count = (sql: Prisma.Sql) => tx.$executeRaw(sql);
  const fields = {
    auditEvidence: audit?.redacted ?? 0,
    caseEvidence: 1,
    // The operation's own records: summary, permit reports, kept webhooks, claim conflicts (DESIGN rule 20).
    ...(await redactOperationRecords(tx, { operationRef: kase.operationRef, caseId: row.id, marker })),
    decisionEvidence: await count(Prisma.sql`
      UPDATE decisions SET evidence = ${REDACTED_LABEL} WHERE case_id = ${row.id}::uuid AND evidence <> ${REDACTED_LABEL}`),
    replacementEvidence: await count(Prisma.sql`
      UPDATE replacement_requests SET evidence = ${REDACTED_LABEL}
       WHERE case_id = ${row.id}::uuid AND evidence <> ${REDACTED_LABEL}`),
    holdNotes: await redactHoldNotes(tx, { caseId: row.id, label: REDACTED_LABEL }),
    ledgerNotes: ledger?.n ?? 0,
    // The provider's text and the output URLs it named go too (DESIGN rule 20); status and kind stay.
    providerDetails: await count(Prisma.sql`
      UPDATE provider_observations
         SET detail = CASE WHEN detail IS NULL THEN NULL ELSE ${marker}::jsonb END,
             outputs = CASE WHEN outputs IS NULL THEN NULL ELSE ${marker}::jsonb END
       WHERE case_id = ${row.id}::uuid AND (detail IS NOT NULL OR outputs IS NOT NULL)
         AND NOT (coalesce(detail, outputs) ? '$redacted')`),
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
