import { describe, expect, it, vi } from "vitest";

describe("metric counters", () => {
  it("are one set per process, even when the module is loaded twice (the HTTP entry and Next.js's bundle)", async () => {
    const first = await import("./counters");
    vi.resetModules();
    const second = await import("./counters");
    expect(second).not.toBe(first);
    const before = (await second.counterSamples()).find((s) => s.name === "recovery_lost_claims_total")?.value ?? 0;
    first.increment("recovery_lost_claims_total");
    expect((await second.counterSamples()).find((s) => s.name === "recovery_lost_claims_total")?.value).toBe(
      before + 1,
    );
  });
});
