import { describe, expect, it } from "vitest";
import { isPositiveMicros, planRelease, planReserve, planSettle } from "./holds";
import { DEFAULT_MONEY_CEILING_MICROS, HARD_MONEY_CEILING_MICROS } from "./money-ceiling";

// Decision 051: the domain is the last line behind the adapters' configured ceiling.
describe("the money ceiling in the domain", () => {
  it("refuses a new amount past the hard maximum, whoever forgot the configured ceiling", () => {
    expect(isPositiveMicros(HARD_MONEY_CEILING_MICROS)).toBe(true);
    expect(isPositiveMicros(HARD_MONEY_CEILING_MICROS + 1)).toBe(false);
    expect(isPositiveMicros(Number.MAX_SAFE_INTEGER)).toBe(false);
    expect(planReserve(Number.MAX_SAFE_INTEGER)).toMatchObject({ ok: false, error: { code: "invalid_amount" } });
    expect(planSettle({ amountMicros: 100, status: "held" }, Number.MAX_SAFE_INTEGER).ok).toBe(false);
  });

  it("refuses a hold past the ceiling the caller names", () => {
    expect(planReserve(DEFAULT_MONEY_CEILING_MICROS, DEFAULT_MONEY_CEILING_MICROS).ok).toBe(true);
    const refused = planReserve(DEFAULT_MONEY_CEILING_MICROS + 1, DEFAULT_MONEY_CEILING_MICROS);
    expect(refused).toMatchObject({ ok: false, error: { code: "invalid_amount" } });
  });

  it("still releases or settles a hold stored before the ceiling, so finance can clear it", () => {
    const legacy = { amountMicros: Number.MAX_SAFE_INTEGER, status: "held" as const };
    expect(planRelease(legacy).ok).toBe(true);
    expect(planSettle(legacy, 1_000_000).ok).toBe(true);
  });
});
