/**
 * How the console writes a duration and a moment, everywhere: one vocabulary, so an age in the
 * queue and an age on the Finance page (or a time on a case and on Admin) read alike.
 */

/** "45s", "12m", "3h 5m", "2d 4h": coarse enough to scan a column, exact enough to compare by eye. */
export function formatAge(seconds: number): string {
  const whole = Math.max(0, Math.floor(seconds));
  if (whole < 60) return `${whole}s`;
  const minutes = Math.floor(whole / 60);
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours}h ${minutes % 60}m`;
  return `${Math.floor(hours / 24)}d ${hours % 24}h`;
}

// UTC by default and always named, so a reader never has to guess the zone; the year is there
// because tokens and ledgers outlive one. A person's own zone is chosen on the Profile page and
// applied by <Time> (components/ui/time.tsx) in the browser, which alone knows that zone.
const FORMATS = new Map<string, Intl.DateTimeFormat>();
function whenFormat(timeZone: string, clock = false): Intl.DateTimeFormat {
  const key = `${timeZone}${clock ? " clock" : ""}`;
  let format = FORMATS.get(key);
  if (!format) {
    format = new Intl.DateTimeFormat(
      "en-GB",
      clock
        ? { hour: "2-digit", minute: "2-digit", second: "2-digit", timeZone, timeZoneName: "short" }
        : {
            day: "numeric",
            month: "short",
            year: "numeric",
            hour: "2-digit",
            minute: "2-digit",
            timeZone,
            timeZoneName: "short",
          },
    );
    FORMATS.set(key, format);
  }
  return format;
}

/** "21:14:05 UTC": a moment of today to the second (when a live page last checked), the zone named. */
export function formatClock(at: Date, timeZone = "UTC"): string {
  try {
    return whenFormat(timeZone, true).format(at);
  } catch {
    return whenFormat("UTC", true).format(at);
  }
}

/**
 * "2 Dec 2026, 11:44 UTC" (or in `timeZone`, named: "2 Dec 2026, 06:44 GMT-5"); `fallback` for a
 * moment that has not happened (never used, no expiry).
 */
export function formatWhen(at: Date | string | null | undefined, fallback = "—", timeZone = "UTC"): string {
  if (at === null || at === undefined || at === "") return fallback;
  const date = typeof at === "string" ? new Date(at) : at;
  if (Number.isNaN(date.getTime())) return String(at);
  try {
    return whenFormat(timeZone).format(date);
  } catch {
    // A zone this runtime does not know: UTC, still named, rather than no time at all.
    return whenFormat("UTC").format(date);
  }
}

const SIZE_UNITS = ["bytes", "KB", "MB", "GB", "TB"] as const;
const SIZE = new Intl.NumberFormat("en-GB", { maximumFractionDigits: 1 });

/** "512 KB", "1.5 MB" (powers of 1,024, as file browsers count), "1 byte"; the exact count goes in a title. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return String(bytes);
  if (bytes === 1) return "1 byte";
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < SIZE_UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${SIZE.format(value)} ${SIZE_UNITS[unit]}`;
}
