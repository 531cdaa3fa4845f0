import { describe, expect, it } from "vitest";
import { providerBreakerFormSchema, providerBreakerSchema } from "@/lib/validation/provider-breaker";
import { providerPaceFormSchema, providerPaceSchema } from "@/lib/validation/provider-pace";
import { spendLimitFormSchema, spendLimitSchema } from "@/lib/validation/spend-limits";

// The console's forms for the limits of decision 030: what a person types becomes exact integers,
// and anything that is not plainly an amount (or a rate) is refused at its field, never guessed at.

const issuesOf = (result: { success: boolean; error?: { issues: { path: PropertyKey[] }[] } }) =>
  result.error?.issues.map((issue) => issue.path.join(".")) ?? [];

describe("the spend limit form", () => {
  it("reads amounts in the currency's own decimals, a blank producer as every producer, blanks as no limit", () => {
    expect(spendLimitFormSchema.parse({ currency: "usd", producer: " ", perHour: "250.00", perDay: "" })).toEqual({
      appliesTo: "replacements",
      currency: "USD",
      producer: null,
      model: null,
      perHourMicros: 250_000_000,
      perDayMicros: null,
    });
    expect(spendLimitFormSchema.parse({ currency: "JPY", producer: "shop-a", perHour: "", perDay: "5000" })).toEqual({
      appliesTo: "replacements",
      currency: "JPY",
      producer: "shop-a",
      model: null,
      perHourMicros: null,
      perDayMicros: 5_000_000_000,
    });
  });

  it("reads a limit on one producer's sends, optionally one model's, and refuses one without its producer", () => {
    const form = { appliesTo: "sends", currency: "USD", producer: "shop-a", model: "veo-3", perHour: "10", perDay: "" };
    expect(spendLimitFormSchema.parse(form)).toMatchObject({ appliesTo: "sends", producer: "shop-a", model: "veo-3" });
    expect(issuesOf(spendLimitFormSchema.safeParse({ ...form, producer: "" }))).toEqual(["producer"]);
    expect(issuesOf(spendLimitFormSchema.safeParse({ ...form, appliesTo: "replacements" }))).toEqual(["model"]);
    const api = { appliesTo: "sends", currency: "USD", perHourMicros: 1, perDayMicros: null };
    expect(issuesOf(spendLimitSchema.safeParse(api))).toEqual(["producer"]);
    expect(spendLimitSchema.safeParse({ ...api, producer: "shop-a", model: "veo-3" }).success).toBe(true);
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

describe("the provider breaker form", () => {
  it("reads whole numbers, the window in minutes, and all blank as no breaker", () => {
    const form = { provider: "fal", unknownPercent: "20", windowMinutes: "15", minOutcomes: "10" };
    expect(providerBreakerFormSchema.parse(form)).toEqual({
      provider: "fal",
      unknownPercent: 20,
      windowSeconds: 900,
      minOutcomes: 10,
    });
    expect(
      providerBreakerFormSchema.parse({ ...form, unknownPercent: "", windowMinutes: "", minOutcomes: "" }),
    ).toEqual({ provider: "fal", off: true });
  });

  it("refuses a share past 100 %, a window past a day, no minimum, or a missing figure, at its field", () => {
    const form = { provider: "fal", unknownPercent: "20", windowMinutes: "15", minOutcomes: "10" };
    expect(issuesOf(providerBreakerFormSchema.safeParse({ ...form, unknownPercent: "101" }))).toEqual([
      "unknownPercent",
    ]);
    expect(issuesOf(providerBreakerFormSchema.safeParse({ ...form, windowMinutes: "1441" }))).toEqual([
      "windowMinutes",
    ]);
    expect(issuesOf(providerBreakerFormSchema.safeParse({ ...form, minOutcomes: "0" }))).toEqual(["minOutcomes"]);
    expect(issuesOf(providerBreakerFormSchema.safeParse({ ...form, minOutcomes: "" }))).toEqual(["minOutcomes"]);
    expect(issuesOf(providerBreakerFormSchema.safeParse({ ...form, unknownPercent: "ten" }))).toEqual([
      "unknownPercent",
    ]);
    expect(providerBreakerSchema.safeParse({ provider: "nope", off: true }).success).toBe(false);
  });
});
