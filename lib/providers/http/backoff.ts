import type { RetryPolicy } from "../types";

export const DEFAULT_RETRY: RetryPolicy = {
  maxAttempts: 4,
  baseDelayMs: 250,
  maxDelayMs: 8_000,
  perAttemptTimeoutMs: 10_000,
  maxRetryAfterMs: 60_000,
};

export function retryPolicy(overrides: Partial<RetryPolicy> = {}): RetryPolicy {
  const policy = { ...DEFAULT_RETRY, ...overrides };
  if (!Number.isInteger(policy.maxAttempts) || policy.maxAttempts < 1) {
    throw new RangeError("maxAttempts must be a positive integer");
  }
  return policy;
}

/**
 * Delay before attempt `attempt + 1` (attempt counts from 1). Equal jitter: half the exponential
 * step is fixed so a retry never fires almost immediately, half is random so many workers that
 * failed together do not retry together.
 */
export function backoffDelayMs(attempt: number, policy: RetryPolicy, random: () => number): number {
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(step / 2 + (step / 2) * random());
}

/**
 * Retry-After is either delta-seconds or an HTTP-date (RFC 9110 §10.2.3). Anything else is
 * ignored, so the caller falls back to its own backoff rather than trusting a garbled header.
 */
export function parseRetryAfterMs(header: string | null, nowMs: number): number | undefined {
  if (header === null) return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  if (Number.isNaN(date) || !/[a-z]/i.test(value)) return undefined;
  return Math.max(0, date - nowMs);
}

/** Wait what the server asked, plus up to 10% so throttled clients do not all return at once. */
export function retryAfterDelayMs(retryAfterMs: number, random: () => number): number {
  return Math.round(retryAfterMs + Math.min(500, retryAfterMs * 0.1) * random());
}
