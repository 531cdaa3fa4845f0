import { describe, expect, it } from "vitest";
import type { JobStatus, ProviderAdapter } from "@/lib/providers/types";
import { pacedAdapter, providerPace, providerPacesFromEnv } from "./provider-pace";

/** A clock that only moves when someone sleeps on it, recording every sleep. */
function fakeClock() {
  let now = 0;
  const sleeps: number[] = [];
  return {
    sleeps,
    advance: (ms: number) => {
      now += ms;
    },
    clock: {
      now: () => now,
      sleep: async (ms: number) => {
        sleeps.push(ms);
      },
    },
  };
}

describe("provider pace", () => {
  it("spaces requests evenly at the allowed rate, however many ask at once", async () => {
    const { clock, sleeps, advance } = fakeClock();
    const pace = providerPace(10, clock);
    await Promise.all([pace.take(), pace.take(), pace.take()]);
    expect(sleeps).toEqual([100, 200]);
    advance(1_000);
    await pace.take();
    expect(sleeps).toEqual([100, 200]);
  });

  it("after a Retry-After nothing leaves before it ends, then the spacing resumes", async () => {
    const { clock, sleeps } = fakeClock();
    const pace = providerPace(10, clock);
    pace.holdOff(1_000);
    await pace.take();
    await pace.take();
    expect(sleeps).toEqual([1_000, 1_100]);
  });

  it("refuses a rate that is not a positive number", () => {
    for (const rate of [0, -1, Number.NaN, Number.POSITIVE_INFINITY])
      expect(() => providerPace(rate)).toThrow(RangeError);
  });

  it("a paced adapter waits its turn for every status check and honours the Retry-After it is given", async () => {
    const { clock, sleeps } = fakeClock();
    const pace = providerPace(10, clock);
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
        return answers.shift() as JobStatus;
      },
      downloadOutput: async () => ({ ok: false, reason: "not_available", detail: "", bytesReceived: 0 }),
    } satisfies ProviderAdapter;
    const paced = pacedAdapter(adapter, pace);
    expect((await paced.getJob({ providerJobId: "a" })).kind).toBe("unknown");
    expect((await paced.getJob({ providerJobId: "b" })).kind).toBe("running");
    expect(calls).toEqual(["a", "b"]);
    expect(sleeps).toEqual([2_000]);
    expect(paced.listJobs).toBeUndefined();
  });

  it("is configured per provider from the environment, and a bad value stops the start", () => {
    expect(providerPacesFromEnv({})).toEqual({});
    const paces = providerPacesFromEnv({ REPLICATE_REQUESTS_PER_SECOND: "100", FAL_REQUESTS_PER_SECOND: "" });
    expect(paces.replicate?.requestsPerSecond).toBe(100);
    expect(paces.fal).toBeUndefined();
    expect(() => providerPacesFromEnv({ FAL_REQUESTS_PER_SECOND: "fast" })).toThrow(/FAL_REQUESTS_PER_SECOND/);
  });
});
