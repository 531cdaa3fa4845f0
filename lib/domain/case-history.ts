/**
 * The history page's figures (decision 066): per UTC hour over the last HISTORY_DAYS, cases
 * opened, cases resolved, and cases parked again (moved back before a person after their episode
 * opened: reopened, parked after failing, stopped at an approval's bound, or a failure or lost
 * outputs observed). A case counts at its current episode's opening and resolution.
 */
export const HISTORY_DAYS = 14;
export const HISTORY_SERIES = ["opened", "resolved", "parked"] as const;
export type HistorySeries = (typeof HISTORY_SERIES)[number];

export const HISTORY_SERIES_WORDS: Record<HistorySeries, string> = {
  opened: "Opened",
  resolved: "Resolved",
  parked: "Parked again",
};

/** The audit kinds of a move into "parked" after a case's episode opened (lib/domain/transitions.ts). */
export const PARKED_AGAIN_KINDS = [
  "reopened",
  "poison_parked",
  "recovery_unresolved",
  "generation_failure_observed",
  "outputs_unavailable_observed",
] as const;

export type HistoryHour = { hour: string } & Record<HistorySeries, number>;

/** Every hour of the window, oldest first, zero where nothing happened; `rows` may be in any order. */
export function fillHours(
  from: Date,
  hours: number,
  rows: Array<{ hour: Date; series: HistorySeries; count: number }>,
): HistoryHour[] {
  const filled: HistoryHour[] = Array.from({ length: hours }, (_, i) => ({
    hour: new Date(from.getTime() + i * 3_600_000).toISOString(),
    opened: 0,
    resolved: 0,
    parked: 0,
  }));
  for (const row of rows) {
    const index = Math.floor((row.hour.getTime() - from.getTime()) / 3_600_000);
    const slot = filled[index];
    if (slot) slot[row.series] += row.count;
  }
  return filled;
}
