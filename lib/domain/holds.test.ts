import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { balances, type HoldSnapshot, planLateCharge, planRelease, planReserve, planSettle } from "./holds";
import { HARD_MONEY_CEILING_MICROS } from "./money-ceiling";

const held = (amountMicros: number): HoldSnapshot => ({ amountMicros, status: "held" });

describe("planSettle", () => {
  it("settles the charge and releases the remainder", () => {
    expect(planSettle(held(150_000), 100_000)).toEqual({
      ok: true,
      value: {
        status: "settled",
        entries: [
          { kind: "settle", amountMicros: 100_000, flagged: false },
          { kind: "release", amountMicros: 50_000, flagged: false },
        ],
      },
    });
  });

  it("writes no zero release when the charge equals the hold", () => {
    const plan = planSettle(held(100_000), 100_000);
    expect(plan.ok && plan.value.entries).toEqual([{ kind: "settle", amountMicros: 100_000, flagged: false }]);
  });

  it("caps the settlement at the hold and flags the overage separately", () => {
    const plan = planSettle(held(100_000), 220_000);
    expect(plan.ok && plan.value.entries).toEqual([
      { kind: "settle", amountMicros: 100_000, flagged: false },
      { kind: "overage", amountMicros: 120_000, flagged: true },
    ]);
  });

  it("resolves a hold only once", () => {
    for (const status of ["settled", "released"] as const) {
      const plan = planSettle({ amountMicros: 100_000, status }, 1);
      expect(!plan.ok && plan.error.code).toBe("hold_already_resolved");
      const release = planRelease({ amountMicros: 100_000, status });
      expect(!release.ok && release.error.code).toBe("hold_already_resolved");
    }
  });

  it("refuses zero, negative, fractional, unsafe and non-numeric charges", () => {
    for (const charge of [
      0,
      -1,
      0.5,
      1.000001,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      2 ** 53,
      "10" as unknown as number,
    ]) {
      const plan = planSettle(held(100_000), charge);
      expect(!plan.ok && plan.error.code).toBe("invalid_amount");
    }
  });

  it("refuses a corrupt held amount", () => {
    const plan = planSettle({ amountMicros: 0.1, status: "held" }, 1);
    expect(!plan.ok && plan.error.code).toBe("invalid_amount");
  });
});

describe("planRelease and planReserve", () => {
  it("releases the whole hold", () => {
    expect(planRelease(held(2_000_000))).toEqual({
      ok: true,
      value: { status: "released", entries: [{ kind: "release", amountMicros: 2_000_000, flagged: false }] },
    });
  });

  it("reserves only positive integers", () => {
    expect(planReserve(100_000)).toEqual({
      ok: true,
      value: { kind: "reserve", amountMicros: 100_000, flagged: false },
    });
    for (const amount of [0, -5, 1.5]) expect(planReserve(amount).ok).toBe(false);
  });
});

describe("balances", () => {
  it("detects missing, extra and doubled resolutions", () => {
    const settle = { kind: "settle", amountMicros: 60, flagged: false } as const;
    const release = { kind: "release", amountMicros: 40, flagged: false } as const;
    const overage = { kind: "overage", amountMicros: 999, flagged: true } as const;
    expect(balances(100, [settle, release, overage])).toBe(true);
    expect(balances(100, [settle])).toBe(false);
    expect(balances(100, [settle, release, release])).toBe(false);
    expect(balances(100, [{ ...settle, amountMicros: 100.5 }])).toBe(false);
  });

  it("compares exactly when the entries together pass the safe integer range", () => {
    const big = Number.MAX_SAFE_INTEGER;
    const settle = { kind: "settle", amountMicros: big, flagged: false } as const;
    expect(balances(big, [settle])).toBe(true);
    expect(balances(big, [settle, { kind: "release", amountMicros: big, flagged: false }])).toBe(false);
  });
});

describe("properties over random amounts", () => {
  const micros = fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER });
  // A new charge is at most the hard money ceiling (decision 051); a stored hold may be anything.
  const charges = fc.integer({ min: 1, max: HARD_MONEY_CEILING_MICROS });

  it("every settlement accounts for the hold exactly and the charge exactly", () => {
    fc.assert(
      fc.property(micros, charges, (amount, charge) => {
        const plan = planSettle(held(amount), charge);
        if (!plan.ok) return false;
        const entries = plan.value.entries;
        const sum = (kind: string) =>
          entries.filter((e) => e.kind === kind).reduce((total, e) => total + BigInt(e.amountMicros), 0n);
        return (
          balances(amount, entries) &&
          sum("settle") + sum("overage") === BigInt(charge) &&
          sum("settle") <= BigInt(amount) &&
          entries.every((e) => Number.isSafeInteger(e.amountMicros) && e.amountMicros > 0) &&
          entries.every((e) => e.flagged === (e.kind === "overage"))
        );
      }),
    );
  });

  it("every release balances and nothing resolves twice", () => {
    fc.assert(
      fc.property(micros, micros, (amount, charge) => {
        const release = planRelease(held(amount));
        const after = { amountMicros: amount, status: "released" as const };
        return release.ok && balances(amount, release.value.entries) && !planSettle(after, charge).ok;
      }),
    );
  });
});

describe("DESIGN rule 18: a charge proved after the hold stopped being held", () => {
  it("is a flagged late charge on a released hold, at the amount it held", () => {
    expect(planLateCharge({ amountMicros: 500, status: "released" })).toEqual({
      kind: "late_charge",
      amountMicros: 500,
      flagged: true,
    });
  });

  it("is nothing on a hold that is held (it is settled) or settled (it has its charge)", () => {
    expect(planLateCharge({ amountMicros: 500, status: "held" })).toBeNull();
    expect(planLateCharge({ amountMicros: 500, status: "settled" })).toBeNull();
  });

  it("leaves the reservation's balance alone: it is money beyond the hold, like an overage", () => {
    const charge = planLateCharge({ amountMicros: 500, status: "released" });
    expect(charge && balances(500, [{ kind: "release", amountMicros: 500, flagged: false }, charge])).toBe(true);
  });
});
