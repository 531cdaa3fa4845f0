import { describe, expect, it } from "vitest";
import type { JobStatus, ProviderAdapter } from "@/lib/providers/types";
import { type ProviderPace, pacedAdapter, requestsPerSecondFromEnv } from "./provider-pace";

// The pace itself lives in PostgreSQL and is tested there (tests/integration/shared-pacing.test.ts);
// these hold the adapter to asking it before every API call and telling it every Retry-After.

/** A pace that lets everything through at once and records what it was asked. */
function recordingPace() {
  const seen: string[] = [];
  const pace: ProviderPace = {
    take: async () => {
      seen.push("take");
    },
    holdOff: async (ms) => {
      seen.push(`holdOff ${ms}`);
    },
  };
  return { pace, seen };
}

describe("paced adapter", () => {
  it("waits its turn for every status check and passes on the Retry-After it is given", async () => {
    const { pace, seen } = recordingPace();
    const answers: JobStatus[] = [
      { kind: "unknown", reason: "rate_limited", attempts: 4, httpStatus: 429, retryAfterMs: 2_000 },
      { kind: "running", providerStatus: "processing" },
    ];
    const calls: string[] = [];
    const adapter = {
      provider: "replicate",
      capabilities: {
        findByClientReference: false,
        listJobs: false,
        listJobsRequiresModel: false,
        noJobSettlingSeconds: 0,
      },
      getJob: async (ref: { providerJobId: string }) => {
        calls.push(ref.providerJobId);
        seen.push(`get ${ref.providerJobId}`);
        return answers.shift() as JobStatus;
      },
      downloadOutput: async () => ({ ok: false, reason: "not_available", detail: "", bytesReceived: 0 }),
    } satisfies ProviderAdapter;
    const paced = pacedAdapter(adapter, pace);
    expect((await paced.getJob({ providerJobId: "a" })).kind).toBe("unknown");
    expect((await paced.getJob({ providerJobId: "b" })).kind).toBe("running");
    expect(calls).toEqual(["a", "b"]);
    expect(seen).toEqual(["take", "get a", "holdOff 2000", "take", "get b"]);
    expect(paced.listJobs).toBeUndefined();
  });

  it("reads each provider's rate from the environment, and a bad value stops the start", () => {
    expect(requestsPerSecondFromEnv({}, "replicate")).toBeUndefined();
    const raw = { REPLICATE_REQUESTS_PER_SECOND: "100", FAL_REQUESTS_PER_SECOND: "" };
    expect(requestsPerSecondFromEnv(raw, "replicate")).toBe(100);
    expect(requestsPerSecondFromEnv(raw, "fal")).toBeUndefined();
    for (const value of ["fast", "0", "-1", "Infinity"])
      expect(() => requestsPerSecondFromEnv({ FAL_REQUESTS_PER_SECOND: value }, "fal")).toThrow(
        /FAL_REQUESTS_PER_SECOND/,
      );
  });
});
