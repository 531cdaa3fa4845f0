import { describe, expect, it } from "vitest";
import { parseUsageExport } from "../../lib/domain/usage-export";
import { manualClock } from "./clock";
import { costOf, setPrice } from "./costs";
import { DEFAULT_TIMINGS, type JobSpec } from "./jobs";
import { providerJobIdOf } from "./providers";
import { SimulatorState } from "./state";
import { usageExport } from "./usage-export";

// Each provider's export, as the simulator writes it, must read back through the product's own
// parser to the same jobs and the same micro-units (decision 076).
const fresh = () => {
  const clock = manualClock();
  return { clock, state: new SimulatorState(clock, { ...DEFAULT_TIMINGS, queuedMs: 1_000, runningMs: 1_000 }) };
};

describe("the simulator's prices and usage exports", () => {
  it("charges the price table per second or per video, a job's own charge when it has one, and nothing for a failure", () => {
    const { state } = fresh();
    const make = (spec: JobSpec) => state.createJob(spec);
    expect(costOf(state.prices, make({ provider: "runway", model: "gen4_turbo", input: { duration: 10 } }))).toBe(
      500_000,
    );
    expect(costOf(state.prices, make({ provider: "replicate", model: "minimax/video-01" }))).toBe(500_000);
    expect(costOf(state.prices, make({ provider: "luma", model: "ray-2", costMicros: 420_000 }))).toBe(420_000);
    expect(costOf(state.prices, make({ provider: "fal", model: "fal-ai/x", outcome: "failed" }))).toBe(0);
    setPrice(state.prices, "luma", "ray-2", { unit: "per_generation", priceMicros: 90_000, currency: "EUR" });
    expect(costOf(state.prices, make({ provider: "luma", model: "ray-2" }))).toBe(90_000);
  });

  for (const provider of ["replicate", "fal", "runway", "luma", "veo"] as const) {
    it(`${provider}: lists each finished, charged job once, and the product reads it to the micro-unit`, () => {
      const { clock, state } = fresh();
      const charged = state.createJob({ provider, input: { seconds: 4 } });
      const differs = state.createJob({ provider, costMicros: 1_234_567 });
      state.createJob({ provider, outcome: "failed" });
      state.seedJob({ provider });
      state.createJob({ provider, createdAt: clock.now() + 60_000 });
      clock.advance(2_000);
      const file = usageExport(state, provider, providerJobIdOf);
      const parsed = parseUsageExport(file.format, file.content);
      expect(parsed.problems).toEqual([]);
      expect(parsed.lines.map((line) => [line.providerJobId, line.amountMicros, line.currency]).sort()).toEqual(
        [
          [providerJobIdOf(charged), costOf(state.prices, charged), "USD"],
          [providerJobIdOf(differs), 1_234_567, "USD"],
        ].sort(),
      );
      expect(file.format).toBe(
        provider === "fal" ? "fal_billing_events" : provider === "veo" ? "gcp_billing" : "generic",
      );
    });
  }
});
