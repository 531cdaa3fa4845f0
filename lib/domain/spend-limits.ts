/**
 * Spend limits on replacements (decision 030): the most that may be authorised in one currency in
 * a rolling hour and a rolling day, for every producer together or for one. Pure: the service
 * sums what was authorised in each window and asks here whether one more amount fits.
 */
export const SPEND_WINDOWS = ["hour", "day"] as const;
export type SpendWindow = (typeof SPEND_WINDOWS)[number];

export const SPEND_WINDOW_MS: Readonly<Record<SpendWindow, number>> = { hour: 3_600_000, day: 86_400_000 };

/** A missing figure is no limit on that window. */
export type SpendLimitFigures = { perHourMicros: number | null; perDayMicros: number | null };
export type SpendUse = Readonly<Record<SpendWindow, number>>;

export type SpendBreach = { window: SpendWindow; limitMicros: number; usedMicros: number; requestedMicros: number };

export function limitOf(limit: SpendLimitFigures, window: SpendWindow): number | null {
  return window === "hour" ? limit.perHourMicros : limit.perDayMicros;
}

/** The first window the requested amount would take past its limit, or null when it fits both. */
export function spendBreach(limit: SpendLimitFigures, used: SpendUse, requestedMicros: number): SpendBreach | null {
  for (const window of SPEND_WINDOWS) {
    const limitMicros = limitOf(limit, window);
    if (limitMicros !== null && used[window] + requestedMicros > limitMicros) {
      return { window, limitMicros, usedMicros: used[window], requestedMicros };
    }
  }
  return null;
}
