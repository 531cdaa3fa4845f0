import type { Db } from "@/lib/db/client";

/**
 * Notes that a worker is ticking (the database's clock), for the worker-silence alert. Worker ids
 * change with each process, so the ids not heard from for a week are dropped in the same statement;
 * only a tick drops them, so the latest beat is never lost while every worker is silent.
 */
export async function recordWorkerHeartbeat(db: Db, workerId: string): Promise<void> {
  await db.$executeRaw`
    WITH forgotten AS (DELETE FROM worker_heartbeats WHERE last_tick_at < now() - interval '7 days')
    INSERT INTO worker_heartbeats (worker_id, last_tick_at) VALUES (${workerId}, now())
    ON CONFLICT (worker_id) DO UPDATE SET last_tick_at = excluded.last_tick_at`;
}
