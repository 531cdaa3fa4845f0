import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { eligibleOperationsSql } from "./eligible-operations";

export type EligibleCase = { id: string; resolved_at: Date; days: number };

/**
 * Resolved cases whose retention period (the producer's policy, else the global one) has passed,
 * not yet redacted, and with nothing still open: no hold still held, no send of its operation in
 * flight or younger than the period, no pending replacement
 * request, no suspected duplicate that was not withdrawn (the "open dispute", decision 033), and no
 * notification still due (the producer hears of the case first; retries end within days).
 * `lock` takes the rows (SKIP LOCKED) for a run; a dry run reads without locking.
 */
export function eligibleCasesSql(options: { now: Date; limit?: number; lock?: boolean }): Prisma.Sql {
  return Prisma.sql`
    SELECT c.id, f.resolved_at, e.days FROM cases c
    -- The owner's facts, which audit_redact_case judges by (decision 052): the resolution as the
    -- case's audit chain records it, and the policy as its log records it.
    JOIN case_resolution_facts f ON f.case_id = c.id AND f.resolved
    CROSS JOIN LATERAL retention_policy_in_force(c.producer) e
    WHERE c.state = 'resolved' AND c.resolved_at IS NOT NULL
      -- Never redacted, or re-opened and resolved again since (a new episode's text).
      AND (c.redacted_at IS NULL OR c.redacted_at < c.resolved_at)
      AND e.days IS NOT NULL
      -- The shortest policy bounds every case's: lets the partial index on resolved_at skip the young ones.
      AND c.resolved_at <= ${options.now}::timestamptz
        - make_interval(days => (SELECT min(days) FROM retention_policies))
      -- Never later than the database's clock: audit_redact_case judges the period by it.
      AND f.resolved_at <= least(${options.now}::timestamptz, now()) - make_interval(days => e.days)
      AND NOT EXISTS (SELECT 1 FROM holds h WHERE h.case_id = c.id AND h.status = 'held')
      -- The operation's records end together (redact-operation-records.ts): not while a later send
      -- of it is in flight, or was issued or reported within the period.
      AND NOT EXISTS (SELECT 1 FROM send_permits s WHERE s.operation_ref = c.operation_ref
                       AND (s.status IN ('live', 'accepted')
                            OR greatest(s.created_at, s.reported_at)
                               > least(${options.now}::timestamptz, now()) - make_interval(days => e.days)))
      AND NOT EXISTS (SELECT 1 FROM replacement_requests r WHERE r.case_id = c.id AND r.status = 'pending')
      AND NOT EXISTS (SELECT 1 FROM suspected_duplicates d WHERE d.case_id = c.id AND NOT d.withdrawn)
      AND NOT EXISTS (SELECT 1 FROM notification_outbox n
                       WHERE n.case_id = c.id AND n.delivered_at IS NULL AND n.give_up_at IS NULL)
    ORDER BY c.resolved_at, c.id
    ${options.limit ? Prisma.sql`LIMIT ${options.limit}` : Prisma.empty}
    ${options.lock ? Prisma.sql`FOR UPDATE OF c SKIP LOCKED` : Prisma.empty}`;
}

export type RetentionDryRun = {
  cases: number;
  /** Operations that never became a case, whose records a run would end (DESIGN rule 20). */
  operations: number;
  oldestResolvedAt: Date | null;
  bytes: number;
};

/** What a run now would touch: how many cases and case-less operations, the oldest resolution, the video bytes freed. */
export async function retentionFigures(db: Db, now: Date): Promise<RetentionDryRun> {
  const [row] = await db.$queryRaw<{ cases: bigint; operations: bigint; oldest: Date | null; bytes: bigint | null }[]>`
    WITH e AS (${eligibleCasesSql({ now })})
    SELECT count(*) AS cases, min(e.resolved_at) AS oldest,
           (SELECT count(*) FROM (${eligibleOperationsSql({ now })}) o) AS operations,
           (SELECT coalesce(sum(a.size_bytes), 0) FROM assets a
             WHERE a.case_id IN (SELECT id FROM e) AND a.deleted_at IS NULL) AS bytes
    FROM e`;
  return {
    cases: Number(row?.cases ?? 0),
    operations: Number(row?.operations ?? 0),
    oldestResolvedAt: row?.oldest ?? null,
    bytes: Number(row?.bytes ?? 0),
  };
}
