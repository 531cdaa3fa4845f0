import { describe, expect, it } from "vitest";
import { chargeExamples, previewSettle } from "@/components/finance/settle-preview";
import { parseQueueParams, queueHref } from "@/lib/validation/queue-params";

describe("a settle charge is typed in the hold's currency, with its own decimals", () => {
  it.each([
    [1_000_000, "USD", "0.40", 400_000, 600_000, 0],
    [1_000_000, "KWD", "1.250", 1_000_000, 0, 250_000],
    [500_000_000, "JPY", "420", 420_000_000, 80_000_000, 0],
  ])("held %i %s, charged %j", (held, currency, text, settled, released, overage) => {
    expect(previewSettle(held, currency, text)).toEqual({
      ok: true,
      chargeMicros: settled + overage,
      settledMicros: settled,
      releasedMicros: released,
      overageMicros: overage,
    });
  });

  it.each([
    ["USD", "0.425", "Enter a plain amount such as 0.42: digits, at most 2 decimals, no symbols."],
    ["JPY", "420.5", "Enter a plain amount such as 420: digits, no decimals, no symbols."],
    ["KWD", "0.4251", "Enter a plain amount such as 0.425: digits, at most 3 decimals, no symbols."],
    ["USD", "$0.42", "Enter a plain amount such as 0.42: digits, at most 2 decimals, no symbols."],
  ])("refuses %s %j rather than rounding it", (currency, text, message) => {
    expect(previewSettle(1_000_000, currency, text)).toEqual({ ok: false, message });
  });

  it("shows a placeholder and an example in the currency's shape", () => {
    expect(chargeExamples("USD")).toEqual({ placeholder: "0.00", example: "0.42" });
    expect(chargeExamples("JPY")).toEqual({ placeholder: "0", example: "420" });
    expect(chargeExamples("KWD")).toEqual({ placeholder: "0.000", example: "0.425" });
  });
});

describe("the queue's held-at-least filter is typed in currency units", () => {
  it("becomes micro-units for the list query, and the link carries the decimal back", () => {
    const { query, problem } = parseQueueParams({ minHeld: "5.50", sort: "amount" });
    expect(problem).toBeNull();
    expect(query.minAmountMicros).toBe(5_500_000);
    expect(queueHref({ minAmountMicros: query.minAmountMicros, sort: "amount" })).toBe(
      "/queue?minHeld=5.5&sort=amount",
    );
  });

  it("keeps reading a bookmarked link that has micro-units", () => {
    expect(parseQueueParams({ minAmountMicros: "250000" }).query.minAmountMicros).toBe(250_000);
  });

  it.each(["1.0000001", "1,000", "-5", "$5"])("refuses %j with a message and shows the default view", (text) => {
    const { query, problem } = parseQueueParams({ minHeld: text });
    expect(query.minAmountMicros).toBeUndefined();
    expect(problem).toMatch(
      /^"Held at least" takes a plain amount such as 5 or 0\.50 \(.+\); showing all open cases\.$/,
    );
  });
});
