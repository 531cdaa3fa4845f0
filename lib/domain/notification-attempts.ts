/**
 * What one send of a webhook came to, as the case page's notification log shows it (decision 066).
 * A word, never the sender's error text: what a producer's host name resolved to inside this
 * network stays in the server's log (decision 018).
 */
export const ATTEMPT_OUTCOMES = ["delivered", "error_answer", "no_answer", "address_refused", "no_endpoint"] as const;
export type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number];

export const ATTEMPT_OUTCOME_WORDS: Record<AttemptOutcome, string> = {
  delivered: "Delivered",
  error_answer: "The receiver answered with an error",
  no_answer: "No answer: no connection, or it timed out",
  address_refused: "Not sent: the endpoint's address is not allowed",
  no_endpoint: "Not sent: the producer has no enabled endpoint",
};

/** How a failed send is classed: refused before connecting, answered outside 2xx, or not answered. */
export function failedAttemptOutcome(status: number | null, refused: boolean): AttemptOutcome {
  if (refused) return "address_refused";
  return status === null ? "no_answer" : "error_answer";
}

/**
 * Re-queues of one notification a person may make per hour, whoever makes them: each asks the
 * worker to call an outside address again, so a stuck receiver cannot be hammered from the console.
 */
export const REQUEUES_PER_NOTIFICATION_PER_HOUR = 3;

/** A notification's state as the log names it. */
export type NotificationState = "delivered" | "given_up" | "queued";

export const NOTIFICATION_STATE_WORDS: Record<NotificationState, string> = {
  delivered: "Delivered",
  given_up: "Given up",
  queued: "Waiting to be sent",
};

/** A re-queue is for a message that is not waiting already: delivered (the receiver lost it) or given up. */
export const canRequeue = (state: NotificationState): boolean => state !== "queued";

/** The producer-facing event types, in words; an unknown one reads as its name without punctuation. */
const EVENT_TYPE_WORDS: Record<string, string> = {
  "case.delivered": "Video delivered",
  "case.outputs_lost": "Videos lost at the provider",
  "endpoint.test": "Test message",
};

export function eventTypeWords(eventType: string): string {
  const known = EVENT_TYPE_WORDS[eventType];
  if (known) return known;
  const spaced = eventType.replaceAll(/[._]+/g, " ").trim();
  return `${spaced.charAt(0).toUpperCase()}${spaced.slice(1)}`;
}
