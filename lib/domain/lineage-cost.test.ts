import { describe, expect, it } from "vitest";
import { lineageCost } from "./lineage-cost";

describe("lineage cost", () => {
  it("keeps each currency apart instead of adding USD and JPY into one figure", () => {
    const cost = lineageCost([
      { currency: "USD", entries: [{ kind: "reserve", amountMicros: 5_000_000 }] },
      { currency: "JPY", entries: [{ kind: "reserve", amountMicros: 100_000_000 }] },
      { currency: "USD", entries: [{ kind: "reserve", amountMicros: 100_000 }] },
    ]);
    expect(cost).toEqual([
      { currency: "JPY", reservedMicros: 100_000_000, chargedMicros: 0, heldMicros: 100_000_000 },
      { currency: "USD", reservedMicros: 5_100_000, chargedMicros: 0, heldMicros: 5_100_000 },
    ]);
  });

  it("shows what was charged (overage included) apart from what was reserved and what is still held", () => {
    const cost = lineageCost([
      {
        currency: "USD",
        entries: [
          { kind: "reserve", amountMicros: 100_000 },
          { kind: "settle", amountMicros: 100_000 },
          { kind: "overage", amountMicros: 20_000 },
        ],
      },
      {
        currency: "USD",
        entries: [
          { kind: "reserve", amountMicros: 300_000 },
          { kind: "settle", amountMicros: 40_000 },
          { kind: "release", amountMicros: 260_000 },
        ],
      },
      { currency: "USD", entries: [{ kind: "reserve", amountMicros: 70_000 }] },
    ]);
    expect(cost).toEqual([{ currency: "USD", reservedMicros: 470_000, chargedMicros: 160_000, heldMicros: 70_000 }]);
  });

  it("has no figures for a lineage without holds", () => {
    expect(lineageCost([])).toEqual([]);
  });
});
