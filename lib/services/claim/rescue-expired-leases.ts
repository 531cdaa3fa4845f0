import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import type { Principal } from "@/lib/domain/principal";
import { stateMove } from "@/lib/domain/state-moves";
import { requireWorker } from "../access/actor";
import { stateMoveCtes } from "../case/writer/batch";
import { countConflicts } from "../case/writer/change";

/** Which cases a rescue hands back, and where: the decision's own answer, read once. */
const RESCUE = stateMove({ type: "rescue_lease" }, "claimed");

/**
 * Hands actions whose lease ran out back to the queue (their cases back to `ready`), with an audit
 * row each. The old holder's token is now stale: the next claim issues a higher one. One that has
 * ended without a finish too often is then parked by park-poison-actions.ts before it is claimed.
 */
export async function rescueExpiredLeases(db: Db, actor: Principal, limit = 500): Promise<number> {
  const worker = requireWorker(actor);
  const rows = await db.$queryRaw<{ rescued: bigint; moved: bigint }[]>(Prisma.sql`
    WITH expired AS (
      SELECT id, lease_owner FROM recovery_actions
      WHERE status = 'claimed' AND lease_until <= now()
      ORDER BY lease_until LIMIT ${limit}
      FOR UPDATE SKIP LOCKED
    ), rescued AS (
      UPDATE recovery_actions a
      SET status = 'ready', lease_owner = NULL, lease_until = NULL,
          -- Truncated, not rounded to the column's milliseconds: the same tick's claim (ready_at <= now())
          -- must find it, however soon after the rescue it runs.
          ready_at = date_trunc('milliseconds', now()),
          -- A claim that ran out without a finish counts towards the poison threshold, once.
          failures = CASE WHEN a.failures @> jsonb_build_array(jsonb_build_object('fencingToken', a.fencing_token))
                          THEN a.failures
                          ELSE a.failures || jsonb_build_array(jsonb_build_object('fencingToken', a.fencing_token,
                                 'error', 'the lease ran out before the claim finished', 'at', now())) END
      FROM expired WHERE a.id = expired.id
      RETURNING a.id, a.case_id, a.fencing_token
    ), ${stateMoveCtes({
      move: RESCUE,
      actor: worker,
      source: Prisma.sql`rescued`,
      evidence: Prisma.sql`jsonb_build_object('actionId', s.id, 'expiredFencingToken', s.fencing_token)`,
    })}, tally AS (
      -- The workers page's counts (decision 064): whose leases ran out, and who handed them back.
      SELECT worker_id, sum(lost)::int AS lost, sum(rescued)::int AS rescued FROM (
        SELECT e.lease_owner AS worker_id, 1 AS lost, 0 AS rescued FROM expired e JOIN rescued r ON r.id = e.id
        UNION ALL
        SELECT ${worker.workerId}::text, 0, count(*)::int FROM rescued HAVING count(*) > 0
      ) t WHERE worker_id IS NOT NULL GROUP BY worker_id
    ), beats AS MATERIALIZED (
      -- Locked in one order (by worker), so two workers rescuing each other's leases cannot deadlock.
      SELECT h.worker_id, t.lost, t.rescued FROM worker_heartbeats h JOIN tally t ON t.worker_id = h.worker_id
      ORDER BY h.worker_id
      FOR UPDATE OF h
    ), counted AS (
      UPDATE worker_heartbeats h SET leases_lost = h.leases_lost + b.lost, leases_rescued = h.leases_rescued + b.rescued
      FROM beats b WHERE h.worker_id = b.worker_id
    )
    SELECT (SELECT count(*) FROM rescued) AS rescued, (SELECT count(*) FROM moved) AS moved`);
  const rescued = Number(rows[0]?.rescued ?? 0);
  // An action handed back whose case was not where the decision rescues from lost a race.
  countConflicts("rescue_lease", rescued - Number(rows[0]?.moved ?? 0));
  return rescued;
}
