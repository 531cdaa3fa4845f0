import { describe, expect, it } from "vitest";
import { formatAge, formatBytes, formatWhen } from "@/components/ui/format";

// One way to write an age and a moment across the console (queue, case, finance, admin).
describe("formatAge", () => {
  it.each([
    [0, "0s"],
    [45, "45s"],
    [60, "1m"],
    [12 * 60 + 59, "12m"],
    [3 * 3600 + 5 * 60, "3h 5m"],
    [2 * 86400 + 4 * 3600 + 59 * 60, "2d 4h"],
    [-5, "0s"],
  ])("%i seconds read %s", (seconds, words) => {
    expect(formatAge(seconds)).toBe(words);
  });
});

describe("formatWhen", () => {
  it("writes a Date and an ISO string alike, in UTC with the zone and the year", () => {
    expect(formatWhen(new Date("2026-12-02T11:44:59Z"))).toBe("2 Dec 2026, 11:44 UTC");
    expect(formatWhen("2026-01-05T23:05:00.000Z")).toBe("5 Jan 2026, 23:05 UTC");
  });

  it("says what stands in for a moment that has not happened", () => {
    expect(formatWhen(null)).toBe("—");
    expect(formatWhen(undefined, "never")).toBe("never");
  });

  it("shows text it cannot read as it is, rather than 'Invalid Date'", () => {
    expect(formatWhen("soon")).toBe("soon");
  });
});

describe("formatBytes", () => {
  it.each([
    [0, "0 bytes"],
    [1, "1 byte"],
    [1023, "1,023 bytes"],
    [524_288, "512 KB"],
    [1_572_864, "1.5 MB"],
    [3 * 1024 ** 3, "3 GB"],
  ])("%i bytes read %s", (bytes, words) => {
    expect(formatBytes(bytes)).toBe(words);
  });
});
