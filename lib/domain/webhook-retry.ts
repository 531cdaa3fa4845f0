/** Sends of one webhook before it is given up (with the backoff below, about two and a half days). */
export const MAX_WEBHOOK_ATTEMPTS = 12;

/** A receiver that answers 410 Gone asks never to be called again: its endpoint is disabled. */
const GONE = 410;

export function isDelivered(status: number | null): status is number {
  return status !== null && status >= 200 && status < 300;
}

/**
 * When to send again after the `attempts`-th failed send: exponential from 10 s, capped at 6 h,
 * with half the delay jittered so that a receiver's outage does not come back as one wave.
 */
export function webhookRetryDelayMs(attempts: number, random: () => number): number {
  const ceiling = Math.min(6 * 3600, 10 * 2 ** attempts) * 1000;
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

export type FailedSendPlan = { giveUp: boolean; disableEndpoint: boolean; retryInMs: number | null };

/** What follows a send that was refused, failed in transport (`status` null) or answered outside 2xx. */
export function afterFailedSend(status: number | null, attempts: number, random: () => number): FailedSendPlan {
  const disableEndpoint = status === GONE;
  const giveUp = disableEndpoint || attempts >= MAX_WEBHOOK_ATTEMPTS;
  return { giveUp, disableEndpoint, retryInMs: giveUp ? null : webhookRetryDelayMs(attempts, random) };
}
