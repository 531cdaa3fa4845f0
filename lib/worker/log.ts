import { type Level, logger } from "@/lib/log/logger";

/** One line per worker step, with the case, action and fencing token when there is one. */
export function workerLog(fields: Record<string, unknown>, level: Level = "info"): void {
  // Read on every call: the bench and the tests turn the step lines off and on within one process.
  if (process.env.WORKER_LOG === "0") return;
  logger("worker")[level](fields);
}
