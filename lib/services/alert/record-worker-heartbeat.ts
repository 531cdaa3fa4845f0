import type { Db } from "@/lib/db/client";

/** Notes that a worker is ticking (the database's clock), for the worker-silence alert. */
export async function recordWorkerHeartbeat(db: Db, workerId: string): Promise<void> {
  await db.$executeRaw`
    INSERT INTO worker_heartbeats (worker_id, last_tick_at) VALUES (${workerId}, now())
    ON CONFLICT (worker_id) DO UPDATE SET last_tick_at = excluded.last_tick_at`;
}
