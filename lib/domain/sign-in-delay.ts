/** Failed sign-ins an account may see in a window before its answers start to slow down. */
export const FREE_FAILURES = 3;
const BASE_DELAY_MS = 500;
export const MAX_SIGN_IN_DELAY_MS = 8_000;

/**
 * How long a sign-in to an account waits before its password is checked, given that account's
 * failed attempts in the window (from any address): nothing at first, then doubling up to a cap.
 * It slows a guesser spread over many addresses without ever locking the owner out, as a hard
 * per-account lock would (a stranger's failures cost the owner seconds, not the account).
 */
export function signInDelayMs(recentFailures: number): number {
  if (recentFailures < FREE_FAILURES) return 0;
  return Math.min(MAX_SIGN_IN_DELAY_MS, BASE_DELAY_MS * 2 ** (recentFailures - FREE_FAILURES));
}
