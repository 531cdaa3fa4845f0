import { describe, expect, it } from "vitest";
import { providerPaceFormSchema, providerPaceSchema } from "@/lib/validation/provider-pace";
import { spendLimitFormSchema, spendLimitSchema } from "@/lib/validation/spend-limits";

// The console's forms for the limits of decision 030: what a person types becomes exact integers,
// and anything that is not plainly an amount (or a rate) is refused at its field, never guessed at.

const issuesOf = (result: { success: boolean; error?: { issues: { path: PropertyKey[] }[] } }) =>
  result.error?.issues.map((issue) => issue.path.join(".")) ?? [];

describe("the spend limit form", () => {
  it("reads amounts in the currency's own decimals, a blank producer as every producer, blanks as no limit", () => {
    expect(spendLimitFormSchema.parse({ currency: "usd", producer: " ", perHour: "250.00", perDay: "" })).toEqual({
      currency: "USD",
      producer: null,
      perHourMicros: 250_000_000,
      perDayMicros: null,
    });
    expect(spendLimitFormSchema.parse({ currency: "JPY", producer: "shop-a", perHour: "", perDay: "5000" })).toEqual({
      currency: "JPY",
      producer: "shop-a",
      perHourMicros: null,
      perDayMicros: 5_000_000_000,
    });
  });

  it("refuses amounts finer than the currency, with signs or symbols, at their fields", () => {
    const parsed = spendLimitFormSchema.safeParse({ currency: "USD", producer: "", perHour: "0.001", perDay: "$5" });
    expect(issuesOf(parsed)).toEqual(["perHour", "perDay"]);
    expect(
      issuesOf(spendLimitFormSchema.safeParse({ currency: "dollars", producer: "", perHour: "1", perDay: "" })),
    ).toEqual(["currency"]);
  });

  it("the API takes integer micros, zero included, and null for no limit", () => {
    expect(spendLimitSchema.safeParse({ currency: "EUR", perHourMicros: 0, perDayMicros: null }).success).toBe(true);
    for (const bad of [-1, 1.5, "100"]) {
      expect(spendLimitSchema.safeParse({ currency: "EUR", perHourMicros: bad, perDayMicros: null }).success).toBe(
        false,
      );
    }
  });
});

describe("the provider rate form", () => {
  it("reads a rate, and a blank as unpaced", () => {
    expect(providerPaceFormSchema.parse({ provider: "fal", requestsPerSecond: "0.5" }).requestsPerSecond).toBe(0.5);
    expect(providerPaceFormSchema.parse({ provider: "fal", requestsPerSecond: " " }).requestsPerSecond).toBeNull();
  });

  it("refuses words, zero, and rates past any provider's", () => {
    for (const text of ["fast", "0", "-1", "1e3", "20000"]) {
      expect(issuesOf(providerPaceFormSchema.safeParse({ provider: "fal", requestsPerSecond: text }))).toEqual([
        "requestsPerSecond",
      ]);
    }
    expect(providerPaceSchema.safeParse({ provider: "kling", requestsPerSecond: 1 }).success).toBe(false);
  });
});
