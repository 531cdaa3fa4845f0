import { afterEach, describe, expect, it, vi } from "vitest";
import { CONSOLE_LOCALE, currencyDecimals, currencyFormatter } from "./currency";

describe("currency digits come from Intl's data", () => {
  it.each([
    ["USD", 2],
    ["EUR", 2],
    ["GBP", 2],
    ["JPY", 0],
    ["KWD", 3],
    ["CLF", 4],
    ["XTS", 2],
  ])("%s has %i decimals", (currency, decimals) => {
    expect(currencyDecimals(currency)).toBe(decimals);
  });

  it("builds one formatter per locale, currency and precision and reuses it", () => {
    expect(currencyFormatter("JPY", "minor")).toBe(currencyFormatter("JPY", "minor", CONSOLE_LOCALE));
    expect(currencyFormatter("JPY", "micro")).not.toBe(currencyFormatter("JPY", "minor"));
    expect(currencyFormatter("JPY", "minor", "de-DE")).not.toBe(currencyFormatter("JPY", "minor"));
    expect(currencyFormatter("EUR", "minor", "de-DE").format("1234.5")).toBe("1.234,50\u00a0€");
  });

  it("refuses a code that is not three upper-case letters", () => {
    expect(() => currencyDecimals("usd")).toThrow(expect.objectContaining({ code: "invalid_input" }));
    expect(() => currencyFormatter("US", "minor")).toThrow(expect.objectContaining({ code: "invalid_input" }));
  });
});

describe("in a browser without Intl.NumberFormat v3", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it("still formats, showing a tiny negative amount with its sign instead of failing", () => {
    const Real = Intl.NumberFormat;
    function Old(locale: string, options: Intl.NumberFormatOptions) {
      if (options.signDisplay === "negative") throw new RangeError("Value negative out of range");
      return new Real(locale, options);
    }
    vi.stubGlobal("Intl", { ...Intl, NumberFormat: Old });
    expect(currencyFormatter("USD", "minor", "en-CA").format("-0.004")).toBe("-US$0.00");
    expect(currencyFormatter("USD", "minor", "en-CA").format("1234.5")).toBe("US$1,234.50");
  });
});
