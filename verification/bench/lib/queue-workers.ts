import { randomUUID } from "node:crypto";
import pg from "pg";
import { createPrismaClient } from "../../../lib/db/client";
import { claimActions, proofOf } from "../../../lib/services/claim/claim-actions";
import { finishAction } from "../../../lib/services/claim/finish-action";

/** What every worker saw: one entry per claim it received, for the exactly-once checks. */
export type ClaimLog = { actionId: string; fencingToken: number; outcome: string }[];
export type QueueRun = { seconds: number; claims: ClaimLog };

const worker = (workerId: string) => ({ kind: "worker", tokenId: randomUUID(), name: "bench", workerId }) as const;

/** The provider call between claim and finish: nothing at all, like graphile-worker's no-op task. */
const noopProvider = async () => {};

/**
 * `workers` loops through the product's own services, shaped like run-tick: claim up to `batch`
 * actions in one statement, run each (no-op), finish each under its fencing token. A loop stops
 * when a claim comes back empty.
 */
export async function runProductWorkers(url: string, input: { workers: number; batch: number }): Promise<QueueRun> {
  const db = createPrismaClient(url, input.workers + 2);
  await db.$queryRaw`SELECT 1`;
  const claims: ClaimLog = [];
  const loop = async (index: number) => {
    const actor = worker(`bench-${index}`);
    for (;;) {
      const claimed = await claimActions(db, actor, { max: input.batch });
      if (claimed.length === 0) return;
      for (const item of claimed) {
        await noopProvider();
        const proof = proofOf(item, actor.workerId);
        const outcome = await finishAction(db, actor, proof, { kind: "resolved" });
        claims.push({ actionId: item.actionId, fencingToken: item.fencingToken, outcome });
      }
    }
  };
  try {
    const started = performance.now();
    await Promise.all(Array.from({ length: input.workers }, (_, index) => loop(index)));
    return { seconds: (performance.now() - started) / 1000, claims };
  } finally {
    await db.$disconnect();
  }
}

/**
 * The same work in hand-written SQL through `pg`: one statement claims up to `batch` actions (SKIP
 * LOCKED, lease, next fencing token, case to `claimed`, audit row each); one statement finishes
 * each (fenced lock, case to `resolved`, action `succeeded`, audit row), atomically. Both are
 * prepared once per connection, as the product's statements are.
 */
export async function runRawWorkers(url: string, input: { workers: number; batch: number }): Promise<QueueRun> {
  const pool = new pg.Pool({ connectionString: url, max: input.workers });
  await pool.query("SELECT 1");
  const claims: ClaimLog = [];
  const loop = async (index: number) => {
    const workerId = `raw-${index}`;
    const tokenId = randomUUID();
    for (;;) {
      const { rows } = await pool.query<{ id: string; fencing_token: string }>({
        name: "raw_claim",
        text: CLAIM,
        values: [workerId, tokenId, input.batch],
      });
      if (rows.length === 0) return;
      for (const row of rows) {
        await noopProvider();
        const done = await pool.query({
          name: "raw_finish",
          text: FINISH_ONE,
          values: [row.id, workerId, row.fencing_token, tokenId],
        });
        claims.push({
          actionId: row.id,
          fencingToken: Number(row.fencing_token),
          outcome: done.rowCount === 1 ? "resolved" : "lost_claim",
        });
      }
    }
  };
  try {
    const started = performance.now();
    await Promise.all(Array.from({ length: input.workers }, (_, index) => loop(index)));
    return { seconds: (performance.now() - started) / 1000, claims };
  } finally {
    await pool.end();
  }
}

const CLAIM = `
  WITH picked AS (
    SELECT id FROM recovery_actions
    WHERE status = 'ready' AND ready_at <= now()
    ORDER BY ready_at, id LIMIT $3
    FOR UPDATE SKIP LOCKED
  ), claimed AS (
    UPDATE recovery_actions a
    SET status = 'claimed', lease_owner = $1, lease_until = now() + interval '60 seconds',
        fencing_token = a.fencing_token + 1, claim_count = a.claim_count + 1
    FROM picked WHERE a.id = picked.id
    RETURNING a.id, a.case_id, a.fencing_token
  ), moved AS (
    UPDATE cases c SET state = 'claimed', version = c.version + 1, updated_at = now()
    FROM claimed WHERE c.id = claimed.case_id AND c.state = 'ready'
    RETURNING c.id, c.episode, c.stage, c.version
  ), audited AS (
    INSERT INTO audit_events (case_id, episode, actor_kind, actor_id, actor_label, kind, before, after, evidence)
    SELECT m.id, m.episode, 'worker', $2, 'worker ' || $1, 'claimed',
           jsonb_build_object('state', 'ready', 'stage', m.stage, 'version', m.version - 1),
           jsonb_build_object('state', 'claimed', 'stage', m.stage, 'version', m.version),
           jsonb_build_object('actionId', c.id, 'fencingToken', c.fencing_token, 'workerId', $1::text)
    FROM moved m JOIN claimed c ON c.case_id = m.id
  )
  SELECT c.id, c.fencing_token FROM claimed c JOIN moved m ON m.id = c.case_id`;

const FINISH_ONE = `
  WITH locked AS MATERIALIZED (
    SELECT id, case_id,
           (status = 'claimed' AND lease_owner = $2 AND fencing_token = $3 AND lease_until > now()) AS held
    FROM recovery_actions WHERE id = $1
    FOR UPDATE
  ), held AS (
    SELECT id, case_id FROM locked WHERE held
  ), moved AS (
    UPDATE cases c SET state = 'resolved', version = c.version + 1, updated_at = now(), resolved_at = now(),
                       outcome = 'recovered'
    FROM held WHERE c.id = held.case_id AND c.state = 'claimed' AND c.stage = 'delivery'
    RETURNING c.id, c.episode, c.stage, c.version, c.provider_job_id
  ), finished AS (
    UPDATE recovery_actions a
    SET status = 'succeeded', outcome = 'resolved', lease_owner = NULL, lease_until = NULL, finished_at = now()
    FROM held, moved WHERE a.id = held.id
    RETURNING a.id
  )
  INSERT INTO audit_events (case_id, episode, actor_kind, actor_id, actor_label, kind, before, after, evidence)
  SELECT m.id, m.episode, 'worker', $4, 'worker ' || $2, 'recovery_succeeded',
         jsonb_build_object('stage', m.stage, 'state', 'claimed', 'providerJobId', m.provider_job_id, 'version', m.version - 1),
         jsonb_build_object('stage', m.stage, 'state', 'resolved', 'providerJobId', m.provider_job_id, 'version', m.version),
         jsonb_build_object('kind', 'resolved', 'actionId', $1::text, 'fencingToken', $3::bigint)
  FROM moved m, finished f`;
