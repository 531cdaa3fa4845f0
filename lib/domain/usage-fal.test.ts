import { describe, expect, it } from "vitest";
import { parseUsageExport } from "./usage-export";
import { parseFalBillingEvents } from "./usage-fal";

const event = (extra: Record<string, unknown> = {}) => ({
  request_id: "req-1",
  endpoint_id: "fal-ai/kling-video/v2.5-turbo/pro",
  timestamp: "2026-12-01T10:30:45Z",
  output_units: 5,
  unit_price: 0.07,
  percent_discount: null,
  cost_estimate_nano_usd: 350_000_000,
  ...extra,
});

describe("fal's billing events", () => {
  it("reads one line per event: the request, the endpoint, the time and the cost in micro-dollars", () => {
    const parsed = parseFalBillingEvents(
      JSON.stringify({ billing_events: [event()], next_cursor: null, has_more: false }),
    );
    expect(parsed).toEqual({
      problems: [],
      lines: [
        {
          providerJobId: "req-1",
          providerAccount: null,
          model: "fal-ai/kling-video/v2.5-turbo/pro",
          usageAt: new Date("2026-12-01T10:30:45Z"),
          amountMicros: 350_000,
          currency: "USD",
          lineNumber: 1,
        },
      ],
    });
  });

  it("reads several pages saved as one array, and a credit as a negative line", () => {
    const pages = [
      { billing_events: [event()] },
      { billing_events: [event({ request_id: "req-2", cost_estimate_nano_usd: "-1500000" })] },
    ];
    expect(parseFalBillingEvents(JSON.stringify(pages)).lines.map((l) => [l.providerJobId, l.amountMicros])).toEqual([
      ["req-1", 350_000],
      ["req-2", -1_500],
    ]);
  });

  it("refuses a cost finer than a micro-dollar, a missing request and a bad time, naming each event", () => {
    const parsed = parseFalBillingEvents(
      JSON.stringify({
        billing_events: [
          event({ cost_estimate_nano_usd: 1_500_001 }),
          event({ request_id: "" }),
          event({ timestamp: "yesterday" }),
          event({ cost_estimate_nano_usd: 0.5 }),
        ],
      }),
    );
    expect(parsed.lines).toEqual([]);
    expect(parsed.problems).toEqual([
      { line: 1, message: "cost_estimate_nano_usd is not a whole number of micro-dollars" },
      { line: 2, message: "no request_id" },
      { line: 3, message: "the timestamp is not a date and time" },
      { line: 4, message: "cost_estimate_nano_usd is not a whole number of micro-dollars" },
    ]);
  });

  it("says so when the file is not fal's shape at all", () => {
    expect(parseFalBillingEvents("provider_job_id,amount").problems).toEqual([
      { line: 1, message: "the file is not JSON" },
    ]);
    expect(parseFalBillingEvents('{"items":[]}').problems).toEqual([
      { line: 1, message: "the file holds no billing_events" },
    ]);
  });

  it("is the shape the import reads for the fal_billing_events format; CSV shapes go to the CSV reader", () => {
    expect(parseUsageExport("fal_billing_events", JSON.stringify({ billing_events: [event()] })).lines).toHaveLength(1);
    const csv = "provider_job_id,amount,currency,time\nj1,0.5,USD,2026-12-01T10:00:00Z";
    expect(parseUsageExport("generic", csv).lines).toHaveLength(1);
  });
});
