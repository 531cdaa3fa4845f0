import { db } from "@/lib/db/client";
import { env } from "@/lib/env";
import { processShared } from "@/lib/process-shared";
import { runBulkJobRound } from "@/lib/services/bulk-job/run-bulk-jobs";
import { workerLog } from "./log";

/** How often the console's process looks for a due batch; each job's own pause paces it further. */
export const BULK_JOB_ROUND_MS = 1_000;

// One flag per process, however many copies of this module a bundler makes (see processShared).
const round = processShared("bulk-job-round", () => ({ running: false }));

/**
 * The console's bulk loop (decision 065): one round at a time in this process (a slow round is not
 * overlapped by the next), and across processes each job's batch is taken by one of them (the
 * claim's lease). A failed round is logged and the next one tries again.
 */
export async function runBulkJobsSafely(): Promise<void> {
  if (round.running) return;
  round.running = true;
  try {
    const taken = await runBulkJobRound(db(), { storePrompts: env().STORE_PROMPTS === "1" });
    if (taken > 0) workerLog({ step: "bulk_job_batch", taken });
  } catch (error) {
    workerLog({ step: "bulk_job_error", error: error instanceof Error ? error.message : String(error) }, "error");
  } finally {
    round.running = false;
  }
}
