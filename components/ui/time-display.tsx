"use client";

import { createContext, type ReactNode, useContext, useSyncExternalStore } from "react";
import type { TimeDisplay } from "@/lib/validation/time-display";

const TimeDisplayContext = createContext<TimeDisplay>("local");

/** The signed-in person's choice of local time or UTC, for every <Time> below it. */
export function TimeDisplayProvider({ display, children }: { display: TimeDisplay; children: ReactNode }) {
  return <TimeDisplayContext.Provider value={display}>{children}</TimeDisplayContext.Provider>;
}

const neverChanges = () => () => {};
const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";

/**
 * The zone to write times in. Only the browser knows its zone, so the server (and the first render
 * in the browser, which must match it) writes UTC, and the browser then rewrites in its own zone.
 */
export function useTimeZone(): string {
  const display = useContext(TimeDisplayContext);
  const zone = useSyncExternalStore(neverChanges, browserZone, () => "UTC");
  return display === "utc" ? "UTC" : zone;
}

/** The browser's zone by name ("Europe/Berlin"), for the Profile page to say what local means. */
export function useBrowserZone(): string | null {
  return useSyncExternalStore(neverChanges, browserZone, () => null);
}
