import { formatMicros, type Micros } from "@/lib/domain/money";

/** The words a figure that cannot be shown takes, in its own cell (decision 051). */
export const FIGURE_ERROR = "figure out of range";

/** A formatted amount, or null when the figure is not a whole number of micro-units (a rounded float). */
export function tryFormatMicros(micros: Micros, currency: string): string | null {
  try {
    return formatMicros(micros, currency);
  } catch {
    return null;
  }
}

/**
 * Money is passed around as integer micro-units and formatted only here, for people. A figure that
 * cannot be shown exactly is an error in this one cell, never a page that fails to load.
 */
export function Money({ micros, currency }: { micros: Micros; currency: string }) {
  const text = tryFormatMicros(micros, currency);
  if (text === null) {
    return (
      <span className="font-medium text-red-800" title="This figure is outside the range the console can show exactly.">
        {FIGURE_ERROR}
      </span>
    );
  }
  return <span className="tabular-nums">{text}</span>;
}

/** For sentences that join figures ("$1.00 + ¥20"): the same per-figure error, as text. */
export function moneyText(micros: Micros, currency: string): string {
  return tryFormatMicros(micros, currency) ?? FIGURE_ERROR;
}
