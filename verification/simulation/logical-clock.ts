import type { Clock } from "@/verification/simulator";

/** Every delay the simulation lets the product compute is a whole number of these. */
export const QUANTUM_MS = 10_000;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The simulation's time. It only moves when the schedule says so, in whole quanta, and it runs
 * 60 days behind the wall clock (day-aligned), so a search window the product compares with
 * `new Date()` has always closed, exactly as it has by the time a reviewer looks at it.
 */
export class LogicalClock {
  readonly startMs: number;
  private current: number;

  constructor(wallNowMs = Date.now()) {
    this.startMs = Math.floor((wallNowMs - 60 * DAY_MS) / DAY_MS) * DAY_MS;
    this.current = this.startMs;
  }

  now(): number {
    return this.current;
  }

  date(offsetMs = 0): Date {
    return new Date(this.current + offsetMs);
  }

  iso(offsetMs = 0): string {
    return this.date(offsetMs).toISOString();
  }

  /** Index of the quantum that `ms` falls in (0 at the start of the run). */
  quantum(ms = this.current): number {
    return Math.floor((ms - this.startMs) / QUANTUM_MS);
  }

  fromQuantum(index: number): number {
    return this.startMs + index * QUANTUM_MS;
  }

  advanceTo(ms: number): void {
    if (ms < this.current) throw new Error(`time cannot go back (${ms} < ${this.current})`);
    if ((ms - this.startMs) % QUANTUM_MS !== 0) throw new Error(`time must move in whole quanta (${ms})`);
    this.current = ms;
  }

  /** The provider simulator reads this: job progress and output expiry follow simulated time. */
  asSimulatorClock(): Clock {
    return { now: () => this.current };
  }
}

/** Rounds a duration up to whole quanta (at least one). */
export function quanta(ms: number): number {
  return Math.max(1, Math.ceil(ms / QUANTUM_MS)) * QUANTUM_MS;
}
