import { describe, expect, it } from "vitest";
import { FREE_FAILURES, MAX_SIGN_IN_DELAY_MS, signInDelayMs } from "./sign-in-delay";

describe("sign-in delay", () => {
  it("is free for the first failures, then doubles up to a cap", () => {
    expect(signInDelayMs(0)).toBe(0);
    expect(signInDelayMs(FREE_FAILURES - 1)).toBe(0);
    const delays = Array.from({ length: 10 }, (_, i) => signInDelayMs(FREE_FAILURES + i));
    expect(delays.slice(0, 4)).toEqual([500, 1000, 2000, 4000]);
    for (let i = 1; i < delays.length; i++) expect(delays[i]).toBeGreaterThanOrEqual(delays[i - 1] ?? 0);
    expect(Math.max(...delays)).toBe(MAX_SIGN_IN_DELAY_MS);
    expect(signInDelayMs(1_000_000)).toBe(MAX_SIGN_IN_DELAY_MS);
  });
});
