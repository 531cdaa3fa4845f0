import { describe, expect, it } from "vitest";
import { calendarWindowStart, counterUse, spendBreach } from "./spend-limits";

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

describe("the calendar windows of a sends limit", () => {
  const now = new Date("2026-12-05T03:47:12.345Z");

  it("start at the UTC hour and the UTC day that hold the moment", () => {
    expect(calendarWindowStart("hour", now).toISOString()).toBe("2026-12-05T03:00:00.000Z");
    expect(calendarWindowStart("day", now).toISOString()).toBe("2026-12-05T00:00:00.000Z");
  });

  it("read a counter kept for an earlier window (or none yet) as zero", () => {
    const hour = new Date("2026-12-05T03:00:00.000Z");
    expect(counterUse({ start: hour, usedMicros: 700 }, "hour", now)).toBe(700);
    expect(counterUse({ start: new Date("2026-12-05T02:00:00.000Z"), usedMicros: 700 }, "hour", now)).toBe(0);
    expect(counterUse({ start: new Date("2026-12-05T00:00:00.000Z"), usedMicros: 900 }, "day", now)).toBe(900);
    expect(counterUse({ start: new Date("2026-12-04T00:00:00.000Z"), usedMicros: 900 }, "day", now)).toBe(0);
    expect(counterUse({ start: null, usedMicros: 0 }, "day", now)).toBe(0);
  });
});
