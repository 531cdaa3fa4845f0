/**
 * The money ceiling (docs/decisions/051): no single amount a caller sends (a hold, a charge, a
 * replacement's amount, a price) may exceed it. A deployment sets its own ceiling
 * (MONEY_CEILING_MICROS) up to the hard maximum below, which is also the database's CHECK, so a
 * path that forgets the configured ceiling still cannot write an amount near 2^53.
 */

/** 10,000 units of the currency: far above any one paid video, far below 2^53 micro-units. */
export const DEFAULT_MONEY_CEILING_MICROS = 10_000_000_000;

/** 1,000,000,000 units: what the setting may be raised to, and the database's CHECK (migration 20261205131000). */
export const HARD_MONEY_CEILING_MICROS = 1_000_000_000_000_000;

/** The smallest ceiling that makes sense: one unit of the currency. */
export const MIN_MONEY_CEILING_MICROS = 1_000_000;

/** A spend limit is a window's total, so it is bounded by the hard maximum rather than one hold's ceiling. */
export const MAX_LIMIT_MICROS = HARD_MONEY_CEILING_MICROS;

export function isWithinCeiling(value: number, ceilingMicros: number = HARD_MONEY_CEILING_MICROS): boolean {
  return Number.isSafeInteger(value) && value <= Math.min(ceilingMicros, HARD_MONEY_CEILING_MICROS);
}

export function ceilingMessage(ceilingMicros: number): string {
  return `at most ${ceilingMicros} micro-units (${ceilingMicros / 1_000_000} in the currency): the money ceiling`;
}
