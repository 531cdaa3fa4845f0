import { REDACTED_LABEL, redactedJson } from "@/lib/audit/canonical";
import { recordAudit } from "@/lib/audit/writer";
import type { Db, PrismaClient } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import type { Principal } from "@/lib/domain/principal";
import { GLOBAL_RETENTION_SCOPE, retentionReason } from "@/lib/domain/retention";
import { type EligibleOperation, eligibleOperationsSql } from "./eligible-operations";
import { redactOperationRecords } from "./redact-operation-records";

type Limits = { now: Date; deadline: number; batch: number; maxBatches?: number };

/**
 * Redacts operations that never became a case once their records have ended (DESIGN rule 20), a
 * batch per transaction, as the case phase does; `more` when the deadline or the batch cap came
 * first. Each one's audit text goes through the owner's function, which checks the period itself.
 */
export async function redactEndedOperations(
  db: PrismaClient,
  actor: Principal,
  limits: Limits,
): Promise<{ operations: number; more: boolean }> {
  let operations = 0;
  for (let done = 0; Date.now() < limits.deadline && done < (limits.maxBatches ?? Number.POSITIVE_INFINITY); done++) {
    const count = await inTransaction(db, async (tx) => {
      const rows = await tx.$queryRaw<EligibleOperation[]>(
        eligibleOperationsSql({ now: limits.now, limit: limits.batch, lock: true }),
      );
      for (const row of rows) await redactOperation(tx, actor, row, limits.now);
      return rows.length;
    });
    operations += count;
    if (count < limits.batch) return { operations, more: false };
  }
  return { operations, more: true };
}

async function redactOperation(tx: Db, actor: Principal, row: EligibleOperation, now: Date): Promise<void> {
  // The owner's function writes the policy's own reason (decision 052); the other records carry it too.
  const [audit] = await tx.$queryRaw<{ redacted: number; reason: string }[]>`
    SELECT redacted, reason FROM audit_redact_operation(${row.id}::uuid)`;
  const [ledger] = await tx.$queryRaw<{ n: number }[]>`SELECT ledger_redact_operation_notes(${row.id}::uuid) AS n`;
  const reason = audit?.reason ?? retentionReason(row.days, now);
  const marker = JSON.stringify(redactedJson(reason));
  const fields = await redactOperationRecords(tx, { operationRef: row.id, caseId: null, marker });
  await tx.$executeRaw`UPDATE operations SET redacted_at = ${now} WHERE id = ${row.id}::uuid`;
  // Written after the redaction, so its own record stays readable; it names the operation as the
  // permit's events do (a system-chain event: there is no case).
  await recordAudit(tx, {
    actor,
    kind: "operation_redacted",
    after: { producer: row.producer, operationId: row.operation_id },
    evidence: {
      reason,
      retentionDays: row.days,
      lastActivityAt: row.last_at.toISOString(),
      fields: { ...fields, auditEvidence: audit?.redacted ?? 0, ledgerNotes: ledger?.n ?? 0 },
    },
  });
}

/**
 * Provider webhooks that matched no case and no permit keep their bodies only as long as the
 * global policy: nothing else ends them. Their row (provider, job, status, outcome) stays.
 */
export async function redactLooseWebhooks(db: Db, options: { now: Date; batch: number }): Promise<number> {
  const reason = (days: number) => JSON.stringify(redactedJson(retentionReason(days, options.now)));
  const policy = await db.retentionPolicy.findUnique({ where: { scope: GLOBAL_RETENTION_SCOPE } });
  if (policy?.days == null) return 0;
  return db.$executeRaw`
    UPDATE provider_webhooks SET detail = ${reason(policy.days)}::jsonb,
           note = CASE WHEN note IS NULL THEN NULL ELSE ${REDACTED_LABEL} END
     WHERE id IN (
       SELECT id FROM provider_webhooks
        WHERE case_ref IS NULL AND permit_ref IS NULL AND NOT (detail ? '$redacted')
          AND received_at <= least(${options.now}::timestamptz, now()) - make_interval(days => ${policy.days}::int)
        ORDER BY received_at LIMIT ${options.batch})`;
}
