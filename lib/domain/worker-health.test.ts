import { describe, expect, it } from "vitest";
import { SILENT_AFTER_MS, WORKER_HEALTH_WORDS, workerHealth } from "./worker-health";

describe("worker health", () => {
  const now = new Date("2026-12-05T12:00:00Z");
  it("reads a recent tick as ticking and an old or missing one as silent", () => {
    expect(workerHealth(new Date(now.getTime() - 1_000), now)).toBe("ticking");
    expect(workerHealth(new Date(now.getTime() - SILENT_AFTER_MS), now)).toBe("silent");
    expect(workerHealth(null, now)).toBe("silent");
  });
  it("has words for every health", () => {
    for (const words of Object.values(WORKER_HEALTH_WORDS)) expect(words).not.toMatch(/_/);
  });
});
