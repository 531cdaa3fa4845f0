import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { sqlRows } from "@/lib/db/sql-rows";
import type { Principal } from "@/lib/domain/principal";
import type { RecoveryActionKind } from "@/lib/domain/stages";
import { requirePermission, requireUnscoped } from "../access/actor";

export type WorkerView = {
  workerId: string;
  /** Null: a worker holding leases whose heartbeat was never recorded (or was forgotten). */
  lastTickAt: Date | null;
  firstSeenAt: Date | null;
  leasesHeld: number;
  /** Of those, leases past their end: a rescue will hand them back. */
  leasesExpired: number;
  /** The lease it took last, on what. */
  current: {
    kind: RecoveryActionKind;
    caseId: string;
    operationId: string;
    provider: string;
    leaseUntil: Date;
  } | null;
  lastError: string | null;
  lastErrorAt: Date | null;
  /** Its leases that ran out and another tick handed back; expired leases its ticks handed back. */
  leasesLost: number;
  leasesRescued: number;
};

const MAX_WORKERS = 200;

/**
 * Every worker heard from in the last week (heartbeats are dropped after that) and every worker
 * holding a lease, most recent tick first (decision 064). Leases are read through the partial index
 * on claimed actions, so the page costs what the number of claims in flight costs. Deployment-wide:
 * a worker works for every producer, so only people who see every producer read it.
 */
export async function listWorkers(db: Db, actor: Principal): Promise<WorkerView[]> {
  requireUnscoped(requirePermission(actor, "case:read"));
  const rows = await sqlRows<{
    worker_id: string;
    last_tick_at: Date | null;
    first_seen_at: Date | null;
    last_error: string | null;
    last_error_at: Date | null;
    leases_lost: number | null;
    leases_rescued: number | null;
    held: number;
    expired: number;
    kind: RecoveryActionKind | null;
    case_id: string | null;
    operation_id: string | null;
    provider: string | null;
    lease_until: Date | null;
  }>(
    db,
    Prisma.sql`
    WITH leases AS (
      SELECT a.lease_owner, a.kind::text AS kind, a.case_id, a.lease_until
      FROM recovery_actions a WHERE a.status = 'claimed' AND a.lease_owner IS NOT NULL
    ), workers AS (
      SELECT worker_id FROM worker_heartbeats UNION SELECT lease_owner FROM leases
    )
    SELECT w.worker_id, h.last_tick_at, h.first_seen_at, h.last_error, h.last_error_at, h.leases_lost, h.leases_rescued,
           coalesce(n.held, 0)::int AS held, coalesce(n.expired, 0)::int AS expired,
           cur.kind, cur.case_id, c.operation_id, c.provider, cur.lease_until
    FROM workers w
    LEFT JOIN worker_heartbeats h ON h.worker_id = w.worker_id
    LEFT JOIN LATERAL (
      SELECT count(*) AS held, count(*) FILTER (WHERE l.lease_until <= now()) AS expired
      FROM leases l WHERE l.lease_owner = w.worker_id
    ) n ON true
    LEFT JOIN LATERAL (
      SELECT l.kind, l.case_id, l.lease_until FROM leases l WHERE l.lease_owner = w.worker_id
      ORDER BY l.lease_until DESC LIMIT 1
    ) cur ON true
    LEFT JOIN cases c ON c.id = cur.case_id
    ORDER BY h.last_tick_at DESC NULLS LAST, w.worker_id
    LIMIT ${MAX_WORKERS}`,
  );
  return rows.map((r) => ({
    workerId: r.worker_id,
    lastTickAt: r.last_tick_at,
    firstSeenAt: r.first_seen_at,
    leasesHeld: r.held,
    leasesExpired: r.expired,
    current:
      r.kind && r.case_id && r.lease_until
        ? {
            kind: r.kind,
            caseId: r.case_id,
            operationId: r.operation_id ?? "",
            provider: r.provider ?? "",
            leaseUntil: r.lease_until,
          }
        : null,
    lastError: r.last_error,
    lastErrorAt: r.last_error_at,
    leasesLost: r.leases_lost ?? 0,
    leasesRescued: r.leases_rescued ?? 0,
  }));
}
