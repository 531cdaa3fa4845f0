import { describe, expect, it } from "vitest";
import { priceMetrics } from "@/lib/domain/usage";
import { predictionMetrics } from "./metrics";

describe("what a finished prediction measured", () => {
  it("reads the seconds it ran and, where given, its video's seconds", () => {
    const metrics = { predict_time: 88.3, total_time: 90, video_output_duration_seconds: 10 };
    expect(predictionMetrics(200, { status: "succeeded", metrics })).toEqual({
      kind: "ok",
      succeeded: true,
      runSeconds: 88.3,
      outputSeconds: 10,
    });
    expect(predictionMetrics(200, { status: "failed", metrics: { predict_time: 3 } })).toEqual({
      kind: "ok",
      succeeded: false,
      runSeconds: 3,
    });
  });
  it("says nothing for an unfinished prediction, one without predict_time, or an error answer", () => {
    expect(predictionMetrics(200, { status: "processing", metrics: {} })).toMatchObject({ kind: "unknown" });
    expect(predictionMetrics(200, { status: "succeeded", metrics: {} })).toMatchObject({ kind: "unknown" });
    expect(predictionMetrics(404, { detail: "Not found" })).toMatchObject({ kind: "unknown" });
  });
});

describe("a measured job priced from the price table", () => {
  it("prices video seconds before run seconds, a generation whole, and rounds to the micro-unit", () => {
    expect(priceMetrics({ unit: "per_second", priceMicros: 55_097 }, { runSeconds: 88.3, outputSeconds: 10 })).toBe(
      550_970,
    );
    expect(priceMetrics({ unit: "per_second", priceMicros: 1_400 }, { runSeconds: 12.3456 })).toBe(17_284);
    expect(priceMetrics({ unit: "per_generation", priceMicros: 500_000 }, { runSeconds: 99 })).toBe(500_000);
    expect(priceMetrics({ unit: "per_second", priceMicros: 2 ** 52 }, { runSeconds: 4 })).toBeNull();
  });
});
