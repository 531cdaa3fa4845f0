import { describe, expect, it } from "vitest";
import {
  costOfGeneration,
  duplicateCost,
  formatMicros,
  formatMicrosPrecise,
  microsToAmount,
  microsToDecimal,
  type Price,
  parseMoneyToMicros,
  tryParseMoneyToMicros,
} from "./money";

describe("formatMicros", () => {
  it.each([
    [100_000, "USD", "$0.10"],
    [2_000_000, "USD", "$2.00"],
    [0, "USD", "$0.00"],
    [1_230_000, "EUR", "€1.23"],
    [1_234_567_890_000, "USD", "$1,234,567.89"],
    [4_999, "USD", "$0.00"],
    [5_000, "USD", "$0.01"],
    [14_999, "USD", "$0.01"],
    [15_000, "USD", "$0.02"],
    [-15_000, "USD", "-$0.02"],
    [-4_000, "USD", "$0.00"],
    [Number.MAX_SAFE_INTEGER, "USD", "$9,007,199,254.74"],
  ])("%i %s -> %s", (micros, currency, expected) => {
    expect(formatMicros(micros, currency)).toBe(expected);
  });

  // Intl writes a non-breaking space between a code and the number: "KWD\u00a01.235".
  it.each([
    [1_234_567_890, "USD", "$1,234.57"],
    [1_234_567_890, "EUR", "€1,234.57"],
    [1_234_567_890, "GBP", "£1,234.57"],
    [1_234_567_890, "JPY", "¥1,235"],
    [1_234_567_890, "KWD", "KWD\u00a01,234.568"],
    [3_750_000, "XTS", "XTS\u00a03.75"],
    [0, "JPY", "¥0"],
    [0, "KWD", "KWD\u00a00.000"],
    [499_999, "JPY", "¥0"],
    [500_000, "JPY", "¥1"],
    [-500_000, "JPY", "-¥1"],
    [-499_999, "JPY", "¥0"],
    [2_500, "KWD", "KWD\u00a00.003"],
    [-2_500, "KWD", "-KWD\u00a00.003"],
    [-1_234_567_890, "GBP", "-£1,234.57"],
  ])("each currency gets its own decimals, rounded half away from zero: %i %s -> %s", (micros, currency, expected) => {
    expect(formatMicros(micros, currency)).toBe(expected);
  });

  it.each([
    [2n ** 53n + 1n, "USD", "$9,007,199,254.74"],
    [2n ** 63n - 1n, "USD", "$9,223,372,036,854.78"],
    [-(2n ** 63n), "EUR", "-€9,223,372,036,854.78"],
    [10n ** 30n + 5_000n, "USD", "$1,000,000,000,000,000,000,000,000.01"],
    [10n ** 30n + 4_999n, "USD", "$1,000,000,000,000,000,000,000,000.00"],
    [10n ** 30n + 500_000n, "JPY", "¥1,000,000,000,000,000,000,000,001"],
  ])("stays exact past 2^53 micros: %s %s -> %s", (micros, currency, expected) => {
    expect(formatMicros(micros, currency)).toBe(expected);
  });

  it("refuses fractional micros and bad currency codes", () => {
    expect(() => formatMicros(0.5, "USD")).toThrow(expect.objectContaining({ code: "invalid_amount" }));
    expect(() => formatMicros(Number.NaN, "USD")).toThrow(expect.objectContaining({ code: "invalid_amount" }));
    expect(() => formatMicros(1, "usd")).toThrow(expect.objectContaining({ code: "invalid_input" }));
  });
});

describe("formatMicrosPrecise", () => {
  it.each([
    [22_000, "USD", "$0.022"],
    [10_000, "USD", "$0.01"],
    [1, "USD", "$0.000001"],
    [2_000_000, "EUR", "€2.00"],
    [-123_456, "USD", "-$0.123456"],
    [500_000, "JPY", "¥0.5"],
    [3_000_000, "JPY", "¥3"],
    [22_500, "KWD", "KWD\u00a00.0225"],
    [1_500_000, "KWD", "KWD\u00a01.500"],
    [10n ** 30n + 1n, "GBP", "£1,000,000,000,000,000,000,000,000.000001"],
  ])("%i %s -> %s", (micros, currency, expected) => {
    expect(formatMicrosPrecise(micros, currency)).toBe(expected);
  });
});

describe("microsToAmount", () => {
  it.each([
    [9_600_000, "USD", "9.60"],
    [0, "USD", "0.00"],
    [1_234_567, "CAD", "1.234567"],
    [5_000_000, "JPY", "5"],
    [1_500_000, "KWD", "1.500"],
    [-15_000, "EUR", "-0.015"],
    [2n ** 63n - 1n, "USD", "9223372036854.775807"],
  ])("%s %s -> %s: plain, exact, with the currency's decimals", (micros, currency, expected) => {
    expect(microsToAmount(micros, currency)).toBe(expected);
  });
});

describe("microsToDecimal", () => {
  it.each([
    [0, "0"],
    [1, "0.000001"],
    [-1, "-0.000001"],
    [1_234_500, "1.2345"],
    [2_000_000, "2"],
    [-15_000, "-0.015"],
    [2n ** 63n - 1n, "9223372036854.775807"],
  ])("%s -> %s, built from the integer", (micros, expected) => {
    expect(microsToDecimal(micros)).toBe(expected);
  });
});

describe("parseMoneyToMicros", () => {
  it.each([
    ["0.10", 100_000],
    ["0.1", 100_000],
    ["2", 2_000_000],
    ["0.022", 22_000],
    ["0.000001", 1],
    [" 3.00 ", 3_000_000],
    ["0", 0],
    ["9007199254.740991", Number.MAX_SAFE_INTEGER],
  ])("%j -> %i", (text, micros) => {
    expect(parseMoneyToMicros(text)).toBe(micros);
  });

  it.each(["", "-1", "+1", "1.0000001", "1e3", "1,000", "$1", "1.", ".5", "abc", "1 0", "NaN", "9007199254.740992"])(
    "refuses %j",
    (text) => {
      const parsed = tryParseMoneyToMicros(text);
      expect(!parsed.ok && parsed.error.code).toBe("invalid_amount");
      expect(() => parseMoneyToMicros(text)).toThrow(expect.objectContaining({ code: "invalid_amount" }));
    },
  );

  it.each([
    ["1.23", "USD", 1_230_000],
    ["1.2", "EUR", 1_200_000],
    ["1234", "JPY", 1_234_000_000],
    ["1.234", "KWD", 1_234_000],
    ["0.05", "GBP", 50_000],
    ["0", "JPY", 0],
  ])("%j in %s -> %i: up to the currency's own decimals", (text, currency, micros) => {
    expect(parseMoneyToMicros(text, currency)).toBe(micros);
  });

  it.each([
    ["1.234", "USD", "USD amounts have at most 2 decimals"],
    ["0.001", "EUR", "EUR amounts have at most 2 decimals"],
    ["1.5", "JPY", "JPY amounts have no decimals"],
    ["1.0", "JPY", "JPY amounts have no decimals"],
    ["1.2345", "KWD", "KWD amounts have at most 3 decimals"],
    ["1.0000001", undefined, "at most 6 decimals"],
  ])("refuses %j in %s with a clear message, never rounding", (text, currency, message) => {
    const parsed = tryParseMoneyToMicros(text, currency);
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.error).toMatchObject({ code: "invalid_amount", message });
  });

  it("refuses a malformed currency code as input, not as an amount", () => {
    const parsed = tryParseMoneyToMicros("1", "usd");
    expect(!parsed.ok && parsed.error.code).toBe("invalid_input");
  });

  it("round-trips through the precise formatter", () => {
    for (const micros of [1, 22_000, 100_000, 123_456_789]) {
      expect(parseMoneyToMicros(formatMicrosPrecise(micros, "USD").slice(1))).toBe(micros);
    }
  });
});

describe("generation costs", () => {
  const flash720: Price = { unit: "generation", priceMicros: parseMoneyToMicros("0.10") };
  const flash1080: Price = { unit: "generation", priceMicros: parseMoneyToMicros("0.15") };
  const grok10: Price = { unit: "second", priceMicrosPerSecond: parseMoneyToMicros("0.010") };
  const grok15: Price = { unit: "second", priceMicrosPerSecond: parseMoneyToMicros("0.022") };

  it("per generation: $0.10 and $0.15 give $2.00 and $3.00 for 20", () => {
    expect(formatMicros(costOfGeneration(flash720), "USD")).toBe("$0.10");
    expect(formatMicros(costOfGeneration(flash1080), "USD")).toBe("$0.15");
    expect(duplicateCost(flash720, 20)).toBe(2_000_000);
    expect(duplicateCost(flash1080, 20)).toBe(3_000_000);
    expect(formatMicros(duplicateCost(flash720, 20), "USD")).toBe("$2.00");
    expect(formatMicros(duplicateCost(flash1080, 20), "USD")).toBe("$3.00");
  });

  it("per second for 10 s: $0.010/s and $0.022/s give $0.10 and $0.22, and $2.00 and $4.40 for 20", () => {
    expect(costOfGeneration(grok10, 10)).toBe(100_000);
    expect(costOfGeneration(grok15, 10)).toBe(220_000);
    expect(formatMicros(costOfGeneration(grok10, 10), "USD")).toBe("$0.10");
    expect(formatMicros(costOfGeneration(grok15, 10), "USD")).toBe("$0.22");
    expect(formatMicros(duplicateCost(grok10, 20, 10), "USD")).toBe("$2.00");
    expect(formatMicros(duplicateCost(grok15, 20, 10), "USD")).toBe("$4.40");
  });

  it("refuses missing or fractional seconds, bad counts and unsafe totals", () => {
    expect(() => costOfGeneration(grok10)).toThrow(expect.objectContaining({ code: "invalid_input" }));
    expect(() => costOfGeneration(grok10, 5.5)).toThrow(expect.objectContaining({ code: "invalid_input" }));
    expect(() => duplicateCost(flash720, -1)).toThrow(expect.objectContaining({ code: "invalid_input" }));
    expect(() => duplicateCost(flash720, 1.5)).toThrow(expect.objectContaining({ code: "invalid_input" }));
    expect(() => duplicateCost(flash720, Number.MAX_SAFE_INTEGER)).toThrow(
      expect.objectContaining({ code: "invalid_amount" }),
    );
    expect(() => costOfGeneration({ unit: "generation", priceMicros: 0.1 })).toThrow(
      expect.objectContaining({ code: "invalid_amount" }),
    );
    expect(duplicateCost(flash720, 0)).toBe(0);
  });
});
