/**
 * When to look again at a job that is still running: exponential in the number of checks so far,
 * capped, with full jitter so a burst of parked jobs does not come back as one wave.
 */
export function nextCheckDelayMs(
  checks: number,
  baseSeconds: number,
  maxSeconds: number,
  random: () => number,
): number {
  const ceiling = Math.min(maxSeconds, baseSeconds * 2 ** Math.max(0, checks - 1)) * 1000;
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}
