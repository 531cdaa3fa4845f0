import { describe, expect, it } from "vitest";
import { backoffDelayMs, parseRetryAfterMs, retryAfterDelayMs, retryPolicy } from "./backoff";

const policy = retryPolicy({ baseDelayMs: 100, maxDelayMs: 1_000 });

describe("backoffDelayMs", () => {
  it("doubles per attempt, keeps half fixed and caps at maxDelayMs", () => {
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffDelayMs(n, policy, () => 0))).toEqual([50, 100, 200, 400, 500, 500]);
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffDelayMs(n, policy, () => 1))).toEqual([100, 200, 400, 800, 1000, 1000]);
  });
});

describe("parseRetryAfterMs", () => {
  const now = Date.parse("2026-11-06T12:00:00Z");

  it("reads delta-seconds and HTTP-dates", () => {
    expect(parseRetryAfterMs("3", now)).toBe(3000);
    expect(parseRetryAfterMs(" 0 ", now)).toBe(0);
    expect(parseRetryAfterMs("Fri, 06 Nov 2026 12:00:05 GMT", now)).toBe(5000);
    expect(parseRetryAfterMs("Fri, 06 Nov 2026 11:00:00 GMT", now)).toBe(0);
  });

  it("ignores missing or garbled values", () => {
    expect(parseRetryAfterMs(null, now)).toBeUndefined();
    expect(parseRetryAfterMs("-1", now)).toBeUndefined();
    expect(parseRetryAfterMs("1.5", now)).toBeUndefined();
    expect(parseRetryAfterMs("soon", now)).toBeUndefined();
  });
});

describe("retryAfterDelayMs", () => {
  it("never waits less than asked and adds at most 10% (capped)", () => {
    expect(retryAfterDelayMs(1000, () => 0)).toBe(1000);
    expect(retryAfterDelayMs(1000, () => 1)).toBe(1100);
    expect(retryAfterDelayMs(60_000, () => 1)).toBe(60_500);
  });
});

describe("retryPolicy", () => {
  it("refuses a policy that could never try", () => {
    expect(() => retryPolicy({ maxAttempts: 0 })).toThrow(RangeError);
  });
});
