import { describe, expect, it } from "vitest";
import { spendBreach } from "./spend-limits";

describe("spend limits", () => {
  const limit = { perHourMicros: 1_000_000, perDayMicros: 5_000_000 };

  it("lets an amount through that reaches a limit exactly, and refuses one micro more", () => {
    expect(spendBreach(limit, { hour: 600_000, day: 600_000 }, 400_000)).toBeNull();
    expect(spendBreach(limit, { hour: 600_000, day: 600_000 }, 400_001)).toEqual({
      window: "hour",
      limitMicros: 1_000_000,
      usedMicros: 600_000,
      requestedMicros: 400_001,
    });
  });

  it("checks the day when the hour has room, and a missing figure limits nothing", () => {
    expect(spendBreach(limit, { hour: 0, day: 4_900_000 }, 200_000)?.window).toBe("day");
    expect(spendBreach({ perHourMicros: null, perDayMicros: null }, { hour: 9e12, day: 9e12 }, 1)).toBeNull();
    expect(spendBreach({ perHourMicros: 0, perDayMicros: null }, { hour: 0, day: 0 }, 1)?.window).toBe("hour");
  });
});
