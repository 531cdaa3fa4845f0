import { fail, ok, type Result } from "./errors";
import { ceilingMessage, HARD_MONEY_CEILING_MICROS, isWithinCeiling } from "./money-ceiling";

export const HOLD_STATUSES = ["held", "settled", "released"] as const;
export type HoldStatus = (typeof HOLD_STATUSES)[number];

// `adjustment`: an imported usage line's difference to what was charged, signed (decision 073).
// `outside_charge`: a provider's charge finance explained as made outside the product, with no hold (decision 074).
export const LEDGER_ENTRY_KINDS = [
  "reserve",
  "settle",
  "release",
  "overage",
  "late_charge",
  "adjustment",
  "outside_charge",
] as const;
export type LedgerEntryKind = (typeof LEDGER_ENTRY_KINDS)[number];
/** The kinds whose sum is what a hold was charged. */
export const CHARGE_KINDS = [
  "settle",
  "overage",
  "late_charge",
  "adjustment",
] as const satisfies readonly LedgerEntryKind[];

/** `flagged` marks money that nobody reserved, so finance sees it instead of it being absorbed. */
export interface LedgerEntryPlan {
  kind: LedgerEntryKind;
  amountMicros: number;
  flagged: boolean;
}

export interface HoldSnapshot {
  amountMicros: number;
  status: HoldStatus;
}

export interface HoldResolution {
  status: Exclude<HoldStatus, "held">;
  entries: LedgerEntryPlan[];
}

/**
 * A new amount: positive, whole and within the hard money ceiling (decision 051), the last line
 * behind the adapters' configured ceiling, so no path can reserve or charge a figure near 2^53.
 */
export function isPositiveMicros(value: unknown): value is number {
  return typeof value === "number" && value > 0 && isWithinCeiling(value);
}

/**
 * An amount already stored: a hold written before the ceiling existed may exceed it, and must still
 * be releasable or settlable, so resolving checks only that it is a positive safe integer.
 */
function isStoredMicros(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value > 0;
}

/** `ceilingMicros` is the deployment's ceiling where the caller knows it; the hard maximum otherwise. */
export function planReserve(
  amountMicros: number,
  ceilingMicros: number = HARD_MONEY_CEILING_MICROS,
): Result<LedgerEntryPlan> {
  if (!isStoredMicros(amountMicros)) {
    return fail("invalid_amount", "a hold must be a positive whole number of micro-units", {
      amountMicros,
    });
  }
  if (!isPositiveMicros(amountMicros) || !isWithinCeiling(amountMicros, ceilingMicros)) {
    const ceiling = Math.min(ceilingMicros, HARD_MONEY_CEILING_MICROS);
    return fail("invalid_amount", `a hold is ${ceilingMessage(ceiling)}`, { amountMicros, ceilingMicros: ceiling });
  }
  return ok({ kind: "reserve", amountMicros, flagged: false });
}

function checkOpen(hold: HoldSnapshot): Result<void> {
  if (hold.status !== "held") {
    return fail("hold_already_resolved", `the hold is already ${hold.status}`, { status: hold.status });
  }
  if (!isStoredMicros(hold.amountMicros)) {
    return fail("invalid_amount", "the held amount is not a positive integer", {
      amountMicros: hold.amountMicros,
    });
  }
  return ok(undefined);
}

/**
 * Settles up to the held amount and releases the rest in one resolution, so a hold can never be
 * half-resolved. A charge of zero is refused rather than treated as a settlement: "nothing was
 * charged" is a release, which needs its own evidence and a finance decision (planRelease).
 */
export function planSettle(hold: HoldSnapshot, chargeMicros: number): Result<HoldResolution> {
  const open = checkOpen(hold);
  if (!open.ok) return open;
  if (!isPositiveMicros(chargeMicros)) {
    return fail(
      "invalid_amount",
      `a charge must be a positive whole number of micro-units, ${ceilingMessage(HARD_MONEY_CEILING_MICROS)}`,
      {
        chargeMicros,
      },
    );
  }
  const settled = Math.min(chargeMicros, hold.amountMicros);
  const entries: LedgerEntryPlan[] = [{ kind: "settle", amountMicros: settled, flagged: false }];
  if (hold.amountMicros > settled) {
    entries.push({ kind: "release", amountMicros: hold.amountMicros - settled, flagged: false });
  }
  if (chargeMicros > settled) {
    entries.push({ kind: "overage", amountMicros: chargeMicros - settled, flagged: true });
  }
  return ok({ status: "settled", entries });
}

export function planRelease(hold: HoldSnapshot): Result<HoldResolution> {
  const open = checkOpen(hold);
  if (!open.ok) return open;
  return ok({
    status: "released",
    entries: [{ kind: "release", amountMicros: hold.amountMicros, flagged: false }],
  });
}

/**
 * Every reserved micro-unit ends up settled or released, exactly once. Overage is money beyond
 * the reservation and is accounted separately, so it is not part of this sum. Summed as bigint
 * so the comparison stays exact even when a faulty entry list runs past the safe range.
 */
export function balances(reservedMicros: number, entries: readonly LedgerEntryPlan[]): boolean {
  if (!isStoredMicros(reservedMicros)) return false;
  let resolved = 0n;
  for (const entry of entries) {
    if (!isStoredMicros(entry.amountMicros)) return false;
    if (entry.kind === "settle" || entry.kind === "release") resolved += BigInt(entry.amountMicros);
  }
  return resolved === BigInt(reservedMicros);
}

/**
 * DESIGN rule 18: a completion proved after the hold stopped being held. A released hold (by
 * finance, or written off) gets a flagged charge of its own kind at the amount it held (what the
 * provider really charged is a reconciliation's correction, not a guess here); a settled hold
 * already carries its charge, and a held one is settled instead.
 */
export function planLateCharge(hold: HoldSnapshot): LedgerEntryPlan | null {
  if (hold.status !== "released") return null;
  return { kind: "late_charge", amountMicros: hold.amountMicros, flagged: true };
}
