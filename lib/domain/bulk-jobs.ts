/**
 * A confirmed bulk action runs as a tracked job (decision 065): its items are taken in batches with
 * a pause between them, so a large action leaves room for the console, the worker and the people
 * watching, and can be cancelled between batches.
 */
export const BULK_JOB_STATES = ["running", "cancelled", "finished"] as const;
export type BulkJobState = (typeof BULK_JOB_STATES)[number];

export const BULK_JOB_KINDS = ["cases", "holds"] as const;
export type BulkJobKind = (typeof BULK_JOB_KINDS)[number];

/** How fast a job goes: items per batch and the pause after each batch. */
export const BULK_PACES = {
  steady: { batchSize: 25, pauseMs: 1_000 },
  gentle: { batchSize: 5, pauseMs: 10_000 },
  one_a_minute: { batchSize: 1, pauseMs: 60_000 },
} as const;
export type BulkPace = keyof typeof BULK_PACES;
export const BULK_PACE_NAMES = Object.keys(BULK_PACES) as BulkPace[];

export const BULK_PACE_WORDS: Readonly<Record<BulkPace, string>> = {
  steady: "Steady: 25 at a time, one batch a second",
  gentle: "Gentle: 5 at a time, one batch every 10 seconds",
  one_a_minute: "One a minute (to watch closely, or cancel early)",
};

export const BULK_JOB_STATE_WORDS: Readonly<Record<BulkJobState, string>> = {
  running: "Running",
  cancelled: "Cancelled",
  finished: "Finished",
};

/** What a job's counts say: every planned item is done, skipped, failed, or (after a cancel) not done. */
export function notDone(counts: { planned: number; done: number; skipped: number; failed: number }): number {
  return Math.max(0, counts.planned - counts.done - counts.skipped - counts.failed);
}
