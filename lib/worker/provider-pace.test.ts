import { describe, expect, it } from "vitest";
import type { CallOptions, JobStatus, ProviderAdapter } from "@/lib/providers/types";
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
  const capabilities = {
    findByClientReference: false,
    listJobs: false,
    listJobsRequiresModel: false,
    noJobSettlingSeconds: 0,
  };

  it("hands every status check the pace, which each HTTP attempt takes and every Retry-After is told", async () => {
    const { pace, seen } = recordingPace();
    const adapter = {
      provider: "replicate",
      capabilities,
      // What getWithRetry does with the pace it is given: a slot per attempt, the Retry-After passed on.
      getJob: async (ref: { providerJobId: string }, options?: CallOptions) => {
        await options?.pace?.take();
        seen.push(`get ${ref.providerJobId}`);
        await options?.pace?.holdOff(2_000);
        return {
          kind: "unknown",
          reason: "rate_limited",
          attempts: 1,
          httpStatus: 429,
          retryAfterMs: 2_000,
        } as JobStatus;
      },
      downloadOutput: async () => ({ ok: false, reason: "not_available", detail: "", bytesReceived: 0 }),
    } satisfies ProviderAdapter;
    const paced = pacedAdapter(adapter, pace);
    expect((await paced.getJob({ providerJobId: "a" })).kind).toBe("unknown");
    expect(seen).toEqual(["take", "get a", "holdOff 2000"]);
    expect(paced.listJobs).toBeUndefined();
  });

  it("a pace the database cannot answer lets the request go unpaced instead of failing it", async () => {
    const broken: ProviderPace = {
      take: async () => {
        throw new Error("connection refused");
      },
      holdOff: async () => {
        throw new Error("connection refused");
      },
    };
    const adapter = {
      provider: "fal",
      capabilities,
      getJob: async (_ref: { providerJobId: string }, options?: CallOptions) => {
        await options?.pace?.take();
        await options?.pace?.holdOff(1_000);
        return { kind: "running", providerStatus: "IN_PROGRESS" } as JobStatus;
      },
      downloadOutput: async () => ({ ok: false, reason: "not_available", detail: "", bytesReceived: 0 }),
    } satisfies ProviderAdapter;
    expect((await pacedAdapter(adapter, broken).getJob({ providerJobId: "b" })).kind).toBe("running");
  });

  it("paces the cost reads too (billing events, a prediction's metrics), keeping them where the adapter has them", async () => {
    const { pace, seen } = recordingPace();
    const adapter = {
      provider: "fal",
      capabilities,
      getJob: async () => ({ kind: "running", providerStatus: "IN_PROGRESS" }) as JobStatus,
      downloadOutput: async () => ({ ok: false, reason: "not_available", detail: "", bytesReceived: 0 }),
      jobCosts: async (ids: readonly string[], options?: CallOptions) => {
        await options?.pace?.take();
        seen.push(`costs ${ids.join(",")}`);
        return { kind: "ok", costs: [] } as const;
      },
      jobMetrics: async (ref: { providerJobId: string }, options?: CallOptions) => {
        await options?.pace?.take();
        seen.push(`metrics ${ref.providerJobId}`);
        return { kind: "unknown", reason: "not_finished" } as const;
      },
    } satisfies ProviderAdapter;
    const paced = pacedAdapter(adapter, pace);
    await paced.jobCosts?.(["r1", "r2"]);
    await paced.jobMetrics?.({ providerJobId: "p1" });
    expect(seen).toEqual(["take", "costs r1,r2", "take", "metrics p1"]);
    expect(pacedAdapter({ ...adapter, jobCosts: undefined, jobMetrics: undefined }, pace).jobCosts).toBeUndefined();
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
