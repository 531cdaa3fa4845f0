import { describe, expect, it } from "vitest";
import { csvRows, lineHashes, parseUsageCsv, planUsage, signedMicros, usageGap } from "./usage";

describe("signed micro-units from a provider's decimal", () => {
  it("reads plain and negative decimals exactly, never through a float", () => {
    expect(signedMicros("0.083417")).toBe(83_417);
    expect(signedMicros("-1.5")).toBe(-1_500_000);
    expect(signedMicros("4.0000000")).toBe(4_000_000);
    expect(signedMicros("0.1")).toBe(100_000);
  });
  it("refuses what it would have to round or guess", () => {
    for (const text of ["0.0000001", "1e3", "$1", "1,5", "", "12345678901234567"])
      expect(signedMicros(text)).toBeNull();
  });
});

describe("reading an export", () => {
  it("keeps quoted commas and doubled quotes in one cell", () => {
    expect(csvRows('a,"b, c","say ""hi"""\r\n1,2,3')).toEqual([
      ["a", "b, c", 'say "hi"'],
      ["1", "2", "3"],
    ]);
  });
  it("names every line it cannot read and the columns a header lacks", () => {
    expect(parseUsageCsv("generic", "job,amount\nx,1").problems).toEqual([
      { line: 1, message: "the header lacks currency, time, provider_job_id" },
    ]);
    const parsed = parseUsageCsv(
      "generic",
      "provider_job_id,amount,currency,time\nj1,0.5,USD,2026-12-01T10:00:00Z\n,0.5,USD,2026-12-01\nj3,0.5,usd,yesterday",
    );
    expect(parsed.lines.map((l) => l.providerJobId)).toEqual(["j1"]);
    expect(parsed.problems).toEqual([
      { line: 3, message: "no provider job ID" },
      { line: 4, message: "the time is not a date and time" },
    ]);
  });
  it("reads Google Cloud's billing export columns, with no job named", () => {
    const { lines } = parseUsageCsv(
      "gcp_billing",
      "billing_account_id,sku.description,usage_start_time,cost,currency\nB-1,Veo,2026-12-01 00:00:00 UTC,-0.25,EUR",
    );
    expect(lines).toEqual([
      expect.objectContaining({
        providerAccount: "B-1",
        model: "Veo",
        providerJobId: null,
        amountMicros: -250_000,
        currency: "EUR",
      }),
    ]);
    expect(lines[0]?.usageAt.toISOString()).toBe("2026-12-01T00:00:00.000Z");
  });
});

describe("a line's identity", () => {
  const line = {
    providerJobId: "j",
    providerAccount: null,
    model: null,
    usageAt: new Date(0),
    amountMicros: 5,
    currency: "USD",
    lineNumber: 2,
  };
  it("is the same in every file, and two equal lines of one file stay two", () => {
    const [a, b] = lineHashes("fal", [line, { ...line, lineNumber: 3 }]);
    expect(a).not.toBe(b);
    expect(lineHashes("fal", [{ ...line, lineNumber: 9 }])[0]).toBe(a);
    expect(lineHashes("replicate", [line])[0]).not.toBe(a);
  });
});

describe("what a matched line does to its hold", () => {
  it("settles a held hold at the real charge: the rest released, or the excess a flagged overage", () => {
    expect(
      planUsage({ status: "held", amountMicros: 100, currency: "USD", chargedMicros: 0 }, { currency: "USD" }, 80),
    ).toEqual({
      kind: "settle",
      adjustmentMicros: -20,
      resolution: {
        status: "settled",
        entries: [
          { kind: "settle", amountMicros: 80, flagged: false },
          { kind: "release", amountMicros: 20, flagged: false },
        ],
      },
    });
    const over = planUsage(
      { status: "held", amountMicros: 100, currency: "USD", chargedMicros: 0 },
      { currency: "USD" },
      130,
    );
    expect(over.kind === "settle" && over.resolution.entries).toContainEqual({
      kind: "overage",
      amountMicros: 30,
      flagged: true,
    });
  });
  it("posts the difference to what a settled hold's ledger charged, up or down, and nothing when equal", () => {
    const settled = { status: "settled" as const, amountMicros: 100, currency: "USD", chargedMicros: 100 };
    expect(planUsage(settled, { currency: "USD" }, 83)).toEqual({ kind: "adjust", adjustmentMicros: -17 });
    expect(planUsage(settled, { currency: "USD" }, 140)).toEqual({ kind: "adjust", adjustmentMicros: 40 });
    expect(planUsage(settled, { currency: "USD" }, 100)).toEqual({ kind: "adjust", adjustmentMicros: 0 });
  });
  it("charges a released hold after release first, and refuses another currency", () => {
    const released = { status: "released" as const, amountMicros: 100, currency: "USD", chargedMicros: 0 };
    expect(planUsage(released, { currency: "USD" }, 50)).toEqual({ kind: "charge_after_release" });
    expect(planUsage({ ...released, chargedMicros: 100 }, { currency: "USD" }, 50)).toEqual({
      kind: "adjust",
      adjustmentMicros: -50,
    });
    expect(planUsage(released, { currency: "EUR" }, 50)).toEqual({ kind: "unmatched", reason: "currency_differs" });
  });
  it("the gap is what the provider charged less what was reserved", () => {
    expect(usageGap(100n, 83n)).toBe(-17n);
  });
});
