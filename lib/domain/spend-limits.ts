/**
 * Spend limits (decisions 030 and 037): the most that may be authorised in replacements in one
 * currency in a rolling hour and a rolling day (every producer together or one), or the most a
 * producer's sends (optionally one model's) may hold in a calendar hour and UTC day. Pure: the
 * services find the use and ask here whether one more amount fits.
 */
export const SPEND_LIMIT_TARGETS = ["replacements", "sends"] as const;
export type SpendLimitTarget = (typeof SPEND_LIMIT_TARGETS)[number];

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

/** The calendar window (UTC) a sends limit counts in at `now`: the hour's or the day's start. */
export function calendarWindowStart(window: SpendWindow, now: Date): Date {
  const start = new Date(now.getTime());
  start.setUTCMinutes(0, 0, 0);
  if (window === "day") start.setUTCHours(0);
  return start;
}

/**
 * A sends limit's counter as it reads at `now`, as the gate reads it: a counter kept for an earlier
 * window is zero; one already in a later window (a clock a moment behind the permit that moved it) counts.
 */
export function counterUse(
  counter: { start: Date | null; usedMicros: number },
  window: SpendWindow,
  now: Date,
): number {
  const start = counter.start?.getTime();
  return start !== undefined && start >= calendarWindowStart(window, now).getTime() ? counter.usedMicros : 0;
}
