import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type ProviderAdapters, simulatorAdapters } from "@/lib/providers";
import { type JobSpec, manualClock, type RunningSimulator, startSimulator } from "@/verification/simulator";
import { measureLoopLag } from "./helpers/loop-lag";

// Real HTTP against an in-process simulator; the clock is manual so hours of provider time pass instantly.
const clock = manualClock();
const retry = { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 40, perAttemptTimeoutMs: 300, maxRetryAfterMs: 5_000 };
let sim: RunningSimulator;
let providers: ProviderAdapters;

beforeAll(async () => {
  sim = await startSimulator({ port: 0, clock, timings: { queuedMs: 1_000, runningMs: 5_000, outputBytes: 4_096 } });
  providers = simulatorAdapters(sim.url, { retry });
});
afterAll(() => sim.stop());
afterEach(() => {
  // The recovery path must never create a provider job, nor cancel or delete one, whatever the test did.
  expect(sim.state.createCount()).toBe(0);
  expect(sim.state.cancelCount()).toBe(0);
  sim.state.faults.clear();
  sim.state.rateLimit = undefined;
});

const seed = (spec: JobSpec) => sim.state.seedJob(spec);
const replicateJob = (id: string) => providers.replicate.getJob({ providerJobId: id });
const falJob = (id: string, model: string) => providers.fal.getJob({ providerJobId: id, model });
const runwayTask = (id: string) => providers.runway.getJob({ providerJobId: id });
const veoOperation = (job: { id: string; model: string }) =>
  providers.veo.getJob({ providerJobId: `models/${job.model}/operations/${job.id}` });
const lumaGeneration = (id: string) => providers.luma.getJob({ providerJobId: id });
const hits = (fragment: string) => sim.state.requests({ pathIncludes: fragment });

describe("normalised statuses", () => {
  it("Replicate: starting and processing are running, succeeded is completed with outputs", async () => {
    const job = seed({ provider: "replicate" });
    expect(await replicateJob(job.id)).toEqual({ kind: "running", providerStatus: "starting" });
    clock.advance(1_000);
    expect(await replicateJob(job.id)).toEqual({ kind: "running", providerStatus: "processing" });
    clock.advance(5_000);
    const done = await replicateJob(job.id);
    expect(done).toMatchObject({ kind: "completed", providerStatus: "succeeded", outputsRemoved: false });
    expect(done.kind === "completed" && done.outputs[0]?.url).toBe(
      `${sim.url}/delivery/replicate/${job.id}/output.mp4`,
    );
  });

  it("Replicate: failed and canceled are failed with the provider's reason", async () => {
    const failed = seed({
      provider: "replicate",
      outcome: "failed",
      error: "NSFW content detected",
      queuedMs: 0,
      runningMs: 0,
    });
    const canceled = seed({ provider: "replicate", outcome: "canceled", queuedMs: 0, runningMs: 0 });
    expect(await replicateJob(failed.id)).toMatchObject({ kind: "failed", reason: "NSFW content detected" });
    expect(await replicateJob(canceled.id)).toMatchObject({ kind: "failed", canceled: true });
  });

  it("fal: IN_QUEUE and IN_PROGRESS are running, COMPLETED reads the result's files", async () => {
    const job = seed({ provider: "fal" });
    expect(await falJob(job.id, job.model)).toEqual({ kind: "running", providerStatus: "IN_QUEUE" });
    clock.advance(1_000);
    expect(await falJob(job.id, job.model)).toEqual({ kind: "running", providerStatus: "IN_PROGRESS" });
    clock.advance(5_000);
    expect(await falJob(job.id, job.model)).toMatchObject({
      kind: "completed",
      outputs: [{ url: `${sim.url}/delivery/fal/${job.id}/output.mp4`, size: 4_096, contentType: "video/mp4" }],
    });
  });

  it("fal: a failure replayed by the result endpoint, or stated on the status, is failed", async () => {
    const replayed = seed({ provider: "fal", outcome: "failed", queuedMs: 0, runningMs: 0 });
    expect(await falJob(replayed.id, replayed.model)).toMatchObject({ kind: "failed", reason: /^runner_server_error/ });
    // The replayed error is final: asked once, not retried as if it were a 5xx.
    expect(hits(`/requests/${replayed.id}`).filter((e) => !e.path.endsWith("/status"))).toHaveLength(1);
    const stated = seed({ provider: "fal", outcome: "failed", errorOnStatus: true, queuedMs: 0, runningMs: 0 });
    expect(await falJob(stated.id, stated.model)).toMatchObject({ kind: "failed", providerStatus: "COMPLETED" });
  });

  it("Runway: PENDING and RUNNING are running, SUCCEEDED is completed, FAILED and CANCELLED are failed", async () => {
    const job = seed({ provider: "runway" });
    expect(await runwayTask(job.id)).toEqual({ kind: "running", providerStatus: "PENDING" });
    clock.advance(1_000);
    expect(await runwayTask(job.id)).toEqual({ kind: "running", providerStatus: "RUNNING" });
    clock.advance(5_000);
    expect(await runwayTask(job.id)).toEqual({
      kind: "completed",
      providerStatus: "SUCCEEDED",
      outputsRemoved: false,
      outputs: [{ url: `${sim.url}/delivery/runway/${job.id}/output.mp4` }],
      // The task's final cost (5 credits a second, 5 s), as Runway reports it on every ending.
      evidence: { credits: 25 },
    });
    const failed = seed({ provider: "runway", outcome: "failed", error: "flagged", queuedMs: 0, runningMs: 0 });
    expect(await runwayTask(failed.id)).toMatchObject({ kind: "failed", reason: "INTERNAL.BAD_OUTPUT: flagged" });
    const cancelled = seed({ provider: "runway", outcome: "canceled", queuedMs: 0, runningMs: 0 });
    expect(await runwayTask(cancelled.id)).toMatchObject({ kind: "failed", canceled: true });
    // The simulator refuses a call without an API version, so these answers prove the adapter sends one.
    expect(providers.runway.capabilities).toMatchObject({ listJobs: false, findByClientReference: false });
    expect(providers.runway.listJobs).toBeUndefined();
  });

  it("Veo: an operation not done is running, done with a video is completed, done with an error is failed", async () => {
    const job = seed({ provider: "veo" });
    expect(await veoOperation(job)).toEqual({ kind: "running", providerStatus: "RUNNING" });
    clock.advance(6_000);
    expect(await veoOperation(job)).toEqual({
      kind: "completed",
      providerStatus: "DONE",
      outputsRemoved: false,
      outputs: [{ url: `${sim.url}/veo/v1beta/files/${job.id}:download?alt=media` }],
    });
    const failed = seed({ provider: "veo", outcome: "failed", error: "flagged", queuedMs: 0, runningMs: 0 });
    expect(await veoOperation(failed)).toMatchObject({ kind: "failed", reason: "code 3: flagged" });
    expect(providers.veo.capabilities).toMatchObject({ listJobs: false, findByClientReference: false });
    expect(providers.veo.listJobs).toBeUndefined();
    // An operation name that could leave the API's path is refused before anything is sent.
    await expect(providers.veo.getJob({ providerJobId: "models/../../replicate" })).rejects.toThrow(/operation name/);
  });

  it("Luma: queued and dreaming are running, completed is completed with the video, failed keeps the reason", async () => {
    const job = seed({ provider: "luma" });
    expect(await lumaGeneration(job.id)).toEqual({ kind: "running", providerStatus: "queued" });
    clock.advance(1_000);
    expect(await lumaGeneration(job.id)).toEqual({ kind: "running", providerStatus: "dreaming" });
    clock.advance(5_000);
    expect(await lumaGeneration(job.id)).toEqual({
      kind: "completed",
      providerStatus: "completed",
      outputsRemoved: false,
      outputs: [{ url: `${sim.url}/delivery/luma/${job.id}/output.mp4` }],
    });
    const failed = seed({ provider: "luma", outcome: "failed", error: "blocked words", queuedMs: 0, runningMs: 0 });
    expect(await lumaGeneration(failed.id)).toMatchObject({ kind: "failed", reason: "blocked words", canceled: false });
  });

  it("a job that stays running is reported running hours later", async () => {
    const job = seed({ provider: "replicate", outcome: "stuck" });
    clock.advance(6 * 60 * 60 * 1_000);
    expect(await replicateJob(job.id)).toEqual({ kind: "running", providerStatus: "processing" });
  });
});

describe("not found", () => {
  it("is reported as not_found for both providers, without retrying", async () => {
    expect(await replicateJob("doesnotexist0000000000000a")).toEqual({ kind: "not_found", httpStatus: 404 });
    expect(await falJob("6f1c1f7e-0000-4000-8000-000000000000", "fal-ai/kling-video")).toEqual({
      kind: "not_found",
      httpStatus: 404,
    });
    expect(hits("doesnotexist")).toHaveLength(1);
    expect(await runwayTask("00000000-0000-4000-8000-00000000dead")).toEqual({ kind: "not_found", httpStatus: 404 });
    expect(hits("00000000dead")).toHaveLength(1);
    expect(await veoOperation({ id: "nosuchop0000", model: "veo-3.1-generate-preview" })).toEqual({
      kind: "not_found",
      httpStatus: 404,
    });
    expect(hits("nosuchop0000")).toHaveLength(1);
  });

  it("is unknown for Luma, whose 404 has no documented meaning, and is not retried", async () => {
    expect(await lumaGeneration("00000000-0000-4000-8000-00000000beef")).toEqual({
      kind: "unknown",
      reason: "http_404",
      attempts: 1,
      httpStatus: 404,
    });
    expect(hits("00000000beef")).toHaveLength(1);
  });

  it("stays not_found while a new job is not yet visible, then shows it", async () => {
    const job = seed({ provider: "fal", notFoundForMs: 2_000 });
    expect((await falJob(job.id, job.model)).kind).toBe("not_found");
    clock.advance(2_000);
    expect(await falJob(job.id, job.model)).toMatchObject({ kind: "running" });
  });
});

describe("throttling and transport errors", () => {
  it("waits what Retry-After asks before retrying a 429", async () => {
    const job = seed({ provider: "replicate" });
    sim.state.faults.add({ match: { jobId: job.id }, fault: { type: "rate_limit", retryAfterSeconds: 1 }, times: 1 });
    const lag = measureLoopLag();
    expect(await replicateJob(job.id)).toMatchObject({ kind: "running" });
    const lateMs = lag.stop();
    const [first, second] = hits(job.id);
    const waited = (second?.atMs ?? 0) - (first?.atMs ?? 0);
    expect(waited).toBeGreaterThanOrEqual(1_000);
    // What Retry-After asked, not a longer backoff: slack plus the timer delay the load caused.
    expect(waited).toBeLessThan(1_800 + 2 * lateMs);
  });

  it("honours the simulator's global requests-per-second limit", async () => {
    const job = seed({ provider: "fal" });
    const response = await fetch(`${sim.url}/__admin/faults`, {
      method: "POST",
      body: JSON.stringify({ rateLimit: { requestsPerSecond: 2 } }),
    });
    expect(response.status).toBe(200);
    const started = performance.now();
    const results = [];
    for (let i = 0; i < 3; i++) results.push(await falJob(job.id, job.model));
    expect(results.map((r) => r.kind)).toEqual(["running", "running", "running"]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(900);
  });

  it("hands back a Retry-After longer than the policy allows instead of waiting", async () => {
    const job = seed({ provider: "replicate" });
    sim.state.faults.add({ match: { jobId: job.id }, fault: { type: "rate_limit", retryAfterSeconds: 30 } });
    expect(await replicateJob(job.id)).toEqual({
      kind: "unknown",
      reason: "rate_limited",
      attempts: 1,
      httpStatus: 429,
      retryAfterMs: 30_000,
    });
  });

  it.each([
    ["5xx", { type: "http_error", status: 503 }, "http_503"],
    ["reset", { type: "reset" }, /^connection_error/],
    ["timeout", { type: "hang" }, "timeout"],
  ] as const)("a persistent %s becomes unknown after the bounded attempts", async (_name, fault, reason) => {
    const job = seed({ provider: "replicate", queuedMs: 0, runningMs: 0 });
    sim.state.faults.add({ match: { jobId: job.id }, fault });
    const status = await replicateJob(job.id);
    expect(status).toMatchObject({ kind: "unknown", reason, attempts: 3 });
    expect(hits(job.id)).toHaveLength(3);
  });

  it("waits out a slow answer that stays within the attempt timeout", async () => {
    const job = seed({ provider: "replicate" });
    sim.state.faults.add({ match: { jobId: job.id }, fault: { type: "delay", ms: 150 }, times: 1 });
    const started = performance.now();
    expect(await replicateJob(job.id)).toMatchObject({ kind: "running" });
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    expect(hits(job.id)).toHaveLength(1);
  });

  it("recovers when the failures are transient", async () => {
    const job = seed({ provider: "fal", queuedMs: 0, runningMs: 0 });
    sim.state.faults.add({
      match: { jobId: job.id, route: "status" },
      fault: { type: "http_error", status: 502 },
      times: 2,
    });
    expect(await falJob(job.id, job.model)).toMatchObject({ kind: "completed" });
  });
});
