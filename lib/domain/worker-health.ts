/**
 * How the workers page reads a worker's last tick (decision 064). Workers tick every few seconds
 * (a cron-invoked round or the process loop), so two minutes without one is a worker that stopped
 * or cannot reach the database; its leases then run out and another worker takes them over.
 */
export const SILENT_AFTER_MS = 2 * 60_000;

export type WorkerHealth = "ticking" | "silent";

export function workerHealth(lastTickAt: Date | null, now: Date): WorkerHealth {
  return lastTickAt && now.getTime() - lastTickAt.getTime() < SILENT_AFTER_MS ? "ticking" : "silent";
}

export const WORKER_HEALTH_WORDS: Record<WorkerHealth, string> = {
  ticking: "Ticking",
  silent: "Silent",
};
