/**
 * How often the rules are judged, whichever process does it. Rules count in whole minutes (a window
 * or a re-notify interval is at least one), so a round every 30 s notices a condition and sends a
 * due re-notify within half the smallest unit a rule can name; a round on every tick (~2 s) would
 * cost fifteen times the reads and transactions for nothing a rule could tell apart.
 */
export const ALERT_ROUND_INTERVAL_MS = 30_000;

/** The open episode of a rule, if any: when it last told anyone. */
export type OpenEpisode = { startedAt: Date; lastNotifiedAt: Date };

/**
 * What one evaluation does with a rule: `fire` opens an episode (and notifies), `renotify` tells
 * again because the condition still holds and the interval has passed since the last message,
 * `resolve` closes the episode (and says so), `hold` keeps it open quietly, `quiet` is nothing.
 */
export type AlertStep = "fire" | "renotify" | "resolve" | "hold" | "quiet";

export function nextAlertStep(input: {
  holds: boolean;
  open: OpenEpisode | null;
  renotifyMinutes: number;
  now: Date;
}): AlertStep {
  const { holds, open, renotifyMinutes, now } = input;
  if (!open) return holds ? "fire" : "quiet";
  if (!holds) return "resolve";
  return now.getTime() - open.lastNotifiedAt.getTime() >= renotifyMinutes * 60_000 ? "renotify" : "hold";
}

/** The message type each notifying step sends (the envelope's `type`). */
export const ALERT_MESSAGE_TYPES = {
  fire: "alert.firing",
  renotify: "alert.still_firing",
  resolve: "alert.resolved",
} as const;
export type AlertMessageStep = keyof typeof ALERT_MESSAGE_TYPES;
