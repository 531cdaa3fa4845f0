import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { StatusTotalsTable } from "@/components/finance/status-totals";
import { FIGURE_ERROR, Money, moneyText } from "@/components/ui/money";
import { totalAsNumber } from "@/lib/domain/money";
import type { StatusTotals } from "@/lib/services/finance/finance-totals";

// Decision 051: a figure the console cannot show exactly is an error in its own cell; the rest of
// the table, and the page, are shown as they are.

const row = (held: StatusTotals["held"]["micros"] | number): StatusTotals & { currency: string } => ({
  currency: "USD",
  held: { count: 1, micros: held as StatusTotals["held"]["micros"] },
  settled: { count: 2, partial: 0, micros: "2500000" },
  released: { count: 0, micros: "0" },
  overage: { count: 0, micros: "0" },
  lateCharged: { count: 0, micros: "0" },
  corrected: { count: 0, micros: "0" },
  chargedMicros: "2500000",
  reservedMicros: "2500000",
});

describe("money cells", () => {
  it("show a total past 2^53 exactly when it arrives as its decimal string", () => {
    expect(renderToStaticMarkup(createElement(Money, { micros: "10000000000000001", currency: "USD" }))).toContain(
      "$10,000,000,000.00",
    );
    expect(moneyText("9007199254740993", "USD")).toBe("$9,007,199,254.74");
  });

  it("show a figure that is no whole number of micro-units (a rounded float) as an error in that cell only", () => {
    const html = renderToStaticMarkup(createElement(StatusTotalsTable, { rows: [row(2 ** 53 + 2)] }));
    expect(html.match(new RegExp(FIGURE_ERROR, "g"))).toHaveLength(1);
    expect(html).toContain("$2.50"); // the settled cell and the reserved total, beside it
    expect(moneyText(1.5, "USD")).toBe(FIGURE_ERROR);
  });

  it("give a chart a number only within the safe range", () => {
    expect(totalAsNumber("9007199254740991")).toBe(Number.MAX_SAFE_INTEGER);
    expect(totalAsNumber("9007199254740992")).toBeNull();
    expect(totalAsNumber("-12")).toBe(-12);
  });
});
