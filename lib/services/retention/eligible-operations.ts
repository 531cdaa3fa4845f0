import { Prisma } from "@/lib/db/generated/prisma/client";

export type EligibleOperation = { id: string; producer: string; operation_id: string; last_at: Date; days: number };

/**
 * Operations that never became a case (the normal permit path) whose records have ended (DESIGN
 * rule 20): every permit closed, no hold of theirs still held, the last activity (issue or
 * report) older than the producer's policy, else the global one, and not redacted yet. The same
 * check guards the owner's functions (retention_require_operation_due), by the database's clock.
 */
export function eligibleOperationsSql(options: { now: Date; limit?: number; lock?: boolean }): Prisma.Sql {
  return Prisma.sql`
    SELECT o.id, o.producer, o.operation_id, x.last_at, e.days FROM operations o
    -- The policy as its owner-kept log records it, as audit_redact_operation reads it (decision 052).
    CROSS JOIN LATERAL retention_policy_in_force(o.producer) e
    CROSS JOIN LATERAL (
      SELECT greatest(o.created_at, max(s.created_at), max(s.reported_at)) AS last_at
        FROM send_permits s WHERE s.operation_ref = o.id) x
    WHERE o.redacted_at IS NULL AND e.days IS NOT NULL
      -- The shortest policy bounds every operation's: the partial index on created_at skips the young ones.
      AND o.created_at <= ${options.now}::timestamptz
        - make_interval(days => (SELECT min(days) FROM retention_policies))
      AND x.last_at <= least(${options.now}::timestamptz, now()) - make_interval(days => e.days)
      AND NOT EXISTS (SELECT 1 FROM cases c WHERE c.operation_ref = o.id)
      AND NOT EXISTS (SELECT 1 FROM send_permits s LEFT JOIN holds h ON h.id = s.hold_ref
                       WHERE s.operation_ref = o.id
                         AND (s.status IN ('live', 'accepted', 'uncertain') OR h.status = 'held'))
    ORDER BY o.created_at, o.id
    ${options.limit ? Prisma.sql`LIMIT ${options.limit}` : Prisma.empty}
    ${options.lock ? Prisma.sql`FOR UPDATE OF o SKIP LOCKED` : Prisma.empty}`;
}
