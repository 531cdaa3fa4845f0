import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningSimulator, startSimulator } from "@/verification/simulator";
import { MAX_CACHED_OUTPUTS } from "@/verification/simulator/state";

// Found by the soak run: the simulator kept every downloaded output in memory, so a long-running
// demo grew by the output's size (half a MiB by default) with every delivery.
let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startSimulator({ port: 0 });
});
afterAll(() => sim.stop());

const download = async (jobId: string) => {
  const response = await fetch(`${sim.url}/delivery/replicate/${jobId}/output.mp4`);
  expect(response.status).toBe(200);
  return createHash("sha256")
    .update(Buffer.from(await response.arrayBuffer()))
    .digest("hex");
};

describe("simulator output memory", () => {
  it("holds a bounded number of outputs however many jobs are downloaded, and serves evicted ones unchanged", async () => {
    const jobs = Array.from({ length: MAX_CACHED_OUTPUTS * 3 }, () =>
      sim.state.seedJob({ provider: "replicate", queuedMs: 0, runningMs: 0, outputBytes: 4096 }),
    );
    const first: string[] = [];
    for (const job of jobs) first.push(await download(job.id));
    expect(sim.state.cachedOutputs).toBe(MAX_CACHED_OUTPUTS);

    // The earliest outputs were dropped from memory: they come back byte for byte the same.
    for (const [i, job] of jobs.slice(0, 3).entries()) {
      expect(await download(job.id)).toBe(first[i]);
      expect(first[i]).toBe(sim.state.expectedOutput(job.id)?.sha256);
    }
    expect(sim.state.cachedOutputs).toBe(MAX_CACHED_OUTPUTS);
  });
});
