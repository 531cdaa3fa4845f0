/** Job progress is read from a clock so tests can step through hours of provider time instantly. */
export type Clock = { now(): number };

export const systemClock: Clock = { now: () => Date.now() };

export type ManualClock = Clock & { advance(ms: number): void; set(ms: number): void };

export function manualClock(startMs = Date.parse("2026-11-06T12:00:00Z")): ManualClock {
  let current = startMs;
  return {
    now: () => current,
    advance: (ms) => {
      current += ms;
    },
    set: (ms) => {
      current = ms;
    },
  };
}
