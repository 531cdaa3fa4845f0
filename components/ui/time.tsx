"use client";

import type { ReactNode } from "react";
import { formatClock, formatWhen } from "./format";
import { useTimeZone } from "./time-display";

/**
 * A moment as a person reads it, everywhere in the console: in their own zone (or UTC, as chosen
 * on the Profile page), the zone named, marked up as a <time> whose hover gives UTC and the exact
 * instant; `fallback` stands in when there is none ("never", "no expiry").
 */
export function Time({
  at,
  fallback,
  clock = false,
}: {
  at: Date | string | null | undefined;
  fallback?: string;
  /** Time of day to the second only ("21:14:05 GMT-5"), for what happened moments ago. */
  clock?: boolean;
}) {
  const zone = useTimeZone();
  if (at === null || at === undefined || at === "") return <span>{fallback ?? formatWhen(null)}</span>;
  const date = typeof at === "string" ? new Date(at) : at;
  if (Number.isNaN(date.getTime())) return <span>{String(at)}</span>;
  const iso = date.toISOString();
  return (
    <time dateTime={iso} title={`${formatWhen(date)} (${iso})`} data-zone={zone}>
      {clock ? formatClock(date, zone) : formatWhen(date, "—", zone)}
    </time>
  );
}

/**
 * A hover text that names a moment (`before` then the time), written as <Time> writes it: in the
 * reader's zone or UTC as chosen on the Profile page, so a badge's title agrees with the page.
 */
export function TimeTitled({
  at,
  before,
  className,
  children,
}: {
  at: Date | string;
  before: string;
  className?: string;
  children: ReactNode;
}) {
  const zone = useTimeZone();
  return (
    <span className={className} title={`${before}${formatWhen(at, "—", zone)}`}>
      {children}
    </span>
  );
}
