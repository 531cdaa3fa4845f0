import { describe, expect, it } from "vitest";
import { nextCheckDelayMs } from "./next-check-delay";

describe("next status check", () => {
  it("grows exponentially, is capped, and is jittered within [ceiling/2, ceiling]", () => {
    expect(nextCheckDelayMs(1, 30, 900, () => 0)).toBe(15_000);
    expect(nextCheckDelayMs(1, 30, 900, () => 1)).toBe(30_000);
    expect(nextCheckDelayMs(3, 30, 900, () => 1)).toBe(120_000);
    expect(nextCheckDelayMs(20, 30, 900, () => 1)).toBe(900_000);
    expect(nextCheckDelayMs(20, 30, 900, () => 0)).toBe(450_000);
  });
});
