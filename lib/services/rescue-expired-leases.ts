import type { Db } from "@/lib/db/client";
import type { Principal } from "@/lib/domain/principal";
import { actorColumns, requireWorker } from "./actor";

/**
 * Hands actions whose lease ran out back to the queue (their cases back to `ready`), with an audit
 * row each. The old holder's token is now stale: the next claim issues a higher one. One that has
 * ended without a finish too often is then parked by park-poison-actions.ts before it is claimed.
 */
export async function rescueExpiredLeases(db: Db, actor: Principal, limit = 500): Promise<number> {
  const worker = requireWorker(actor);
  const { actorId, actorLabel } = actorColumns(worker);
  const rows = await db.$queryRaw<{ rescued: bigint }[]>`
    WITH expired AS (
      SELECT id FROM recovery_actions
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
    ), moved AS (
      UPDATE cases c SET state = 'ready', version = c.version + 1, updated_at = now()
      FROM rescued WHERE c.id = rescued.case_id AND c.state = 'claimed'
      RETURNING c.id, c.episode, c.stage, c.version
    ), audited AS (
      INSERT INTO audit_events (case_id, episode, actor_kind, actor_id, actor_label, kind, before, after, evidence)
      SELECT m.id, m.episode, 'worker', ${actorId}, ${actorLabel}, 'lease_rescued',
             jsonb_build_object('state', 'claimed', 'stage', m.stage, 'version', m.version - 1),
             jsonb_build_object('state', 'ready', 'stage', m.stage, 'version', m.version),
             jsonb_build_object('actionId', r.id, 'expiredFencingToken', r.fencing_token)
      FROM moved m JOIN rescued r ON r.case_id = m.id
    )
    SELECT count(*) AS rescued FROM rescued`;
  return Number(rows[0]?.rescued ?? 0);
}
