import { Writable } from "node:stream";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type ProviderAdapters, simulatorAdapters } from "@/lib/providers";
import { type Fault, manualClock, type RunningSimulator, startSimulator } from "@/verification/simulator";
import { measureLoopLag } from "./helpers/loop-lag";

// downloadOutput over real HTTP: streamed into a sink, size-limited, host-checked and verified.
const clock = manualClock();
const SIZE = 200_000;
let sim: RunningSimulator;
let providers: ProviderAdapters;

beforeAll(async () => {
  sim = await startSimulator({ port: 0, clock, timings: { queuedMs: 0, runningMs: 0, outputBytes: SIZE } });
  providers = simulatorAdapters(sim.url, { downloadTimeoutMs: 2_000 });
});
afterAll(() => sim.stop());
afterEach(() => {
  expect(sim.state.createCount()).toBe(0);
  expect(sim.state.cancelCount()).toBe(0);
  sim.state.faults.clear();
});

/** A sink that records what reached it and whether it was ended (committed) or destroyed. */
function memorySink() {
  const chunks: Buffer[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(chunk);
      done();
    },
  });
  return { sink, bytes: () => Buffer.concat(chunks), finished: () => sink.writableFinished };
}

async function completedOutput(provider: "replicate" | "fal") {
  const job = sim.state.seedJob({ provider });
  const status = await providers[provider].getJob({ providerJobId: job.id, model: job.model });
  if (status.kind !== "completed" || !status.outputs[0])
    throw new Error(`expected a completed job, got ${status.kind}`);
  return { job, output: status.outputs[0], expected: sim.state.expectedOutput(job.id) };
}

const withFault = (jobId: string, fault: Fault) => sim.state.faults.add({ match: { jobId, route: "download" }, fault });

describe("downloadOutput", () => {
  it.each(["replicate", "fal"] as const)(
    "%s: streams the output and reports its verified size and sha256",
    async (provider) => {
      const { output, expected } = await completedOutput(provider);
      const target = memorySink();
      const result = await providers[provider].downloadOutput(output, target.sink);
      expect(result).toMatchObject({ ok: true, size: SIZE, sha256: expected?.sha256, contentType: "video/mp4" });
      expect(result.ok && result.verifiedBy).toEqual(expect.arrayContaining(["content-length", "repr-digest"]));
      expect(target.finished()).toBe(true);
      expect(target.bytes().length).toBe(SIZE);
    },
  );

  it("refuses a host that is not on the allow-list without contacting it", async () => {
    const { job, output } = await completedOutput("replicate");
    const elsewhere = output.url.replace("127.0.0.1", "localhost");
    const before = sim.state.requests({ pathIncludes: `/delivery/replicate/${job.id}` }).length;
    const result = await providers.replicate.downloadOutput(elsewhere, memorySink().sink);
    expect(result).toMatchObject({ ok: false, reason: "host_not_allowed", bytesReceived: 0 });
    expect(sim.state.requests({ pathIncludes: `/delivery/replicate/${job.id}` })).toHaveLength(before);
  });

  it("refuses a redirect to a host that is not on the allow-list", async () => {
    const { job, output } = await completedOutput("fal");
    withFault(job.id, { type: "redirect", toHost: new URL(sim.url).host.replace("127.0.0.1", "localhost") });
    const result = await providers.fal.downloadOutput(output, memorySink().sink);
    expect(result).toMatchObject({ reason: "host_not_allowed", detail: expect.stringContaining("localhost") });
    expect(sim.state.requests({ pathIncludes: `/delivery/fal/${job.id}` })).toHaveLength(1);
  });

  it("stops at the size limit, whether announced or only seen while streaming", async () => {
    const { job, output } = await completedOutput("replicate");
    const announced = memorySink();
    expect(await providers.replicate.downloadOutput(output, announced.sink, { maxBytes: 50_000 })).toMatchObject({
      ok: false,
      reason: "too_large",
      bytesReceived: 0,
    });
    withFault(job.id, { type: "chunked" });
    const streamed = memorySink();
    const result = await providers.replicate.downloadOutput(output, streamed.sink, { maxBytes: 50_000 });
    expect(result).toMatchObject({ ok: false, reason: "too_large" });
    expect(streamed.bytes().length).toBeLessThanOrEqual(50_000);
    expect(streamed.finished()).toBe(false);
  });

  it("detects a truncated body and does not commit it", async () => {
    const { job, output } = await completedOutput("fal");
    withFault(job.id, { type: "truncate", afterBytes: 70_000 });
    const target = memorySink();
    expect(await providers.fal.downloadOutput(output, target.sink)).toMatchObject({ ok: false, reason: "truncated" });
    expect(target.finished()).toBe(false);
    expect(target.sink.destroyed).toBe(true);
  });

  it("detects a corrupted body by checksum", async () => {
    const { job, output, expected } = await completedOutput("replicate");
    withFault(job.id, { type: "corrupt" });
    const target = memorySink();
    const result = await providers.replicate.downloadOutput(output, target.sink);
    expect(result).toMatchObject({ ok: false, reason: "checksum_mismatch", bytesReceived: SIZE });
    expect(target.finished()).toBe(false);
    sim.state.faults.clear();
    const wrongExpectation = await providers.replicate.downloadOutput(output, memorySink().sink, {
      expectedSha256: "0".repeat(64),
    });
    expect(wrongExpectation).toMatchObject({ ok: false, reason: "checksum_mismatch" });
    const right = await providers.replicate.downloadOutput(output, memorySink().sink, {
      expectedSha256: expected?.sha256,
    });
    expect(right.ok && right.verifiedBy).toContain("expected-sha256");
  });

  it("gives up on a body that never arrives within the timeout", async () => {
    const { job, output } = await completedOutput("replicate");
    withFault(job.id, { type: "hang" });
    const lag = measureLoopLag();
    const started = performance.now();
    const result = await providers.replicate.downloadOutput(output, memorySink().sink, { timeoutMs: 300 });
    const tookMs = performance.now() - started;
    expect(result).toMatchObject({ ok: false, reason: "timeout" });
    // Given up by its own timeout (the body never comes): slack plus the timer delay the load caused.
    expect(tookMs).toBeLessThan(1_500 + 2 * lag.stop());
  });

  it("reports an expired output URL as not_available, and the job as completed with outputs removed", async () => {
    const { job, output } = await completedOutput("replicate");
    clock.advance(60 * 60 * 1_000);
    expect(await providers.replicate.downloadOutput(output, memorySink().sink)).toMatchObject({
      ok: false,
      reason: "not_available",
      httpStatus: 404,
    });
    expect(await providers.replicate.getJob({ providerJobId: job.id })).toMatchObject({
      kind: "completed",
      outputs: [],
      outputsRemoved: true,
    });
  });
});
