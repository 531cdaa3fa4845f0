import { Writable } from "node:stream";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type ProviderAdapters, simulatorAdapters } from "@/lib/providers";
import { type JobSpec, manualClock, type RunningSimulator, startSimulator } from "@/verification/simulator";

// Reconciliation listings, the simulator's admin API and its create counter, over real HTTP.
const clock = manualClock();
const retry = { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 40, perAttemptTimeoutMs: 300 };
let sim: RunningSimulator;
let providers: ProviderAdapters;

beforeAll(async () => {
  sim = await startSimulator({ port: 0, clock });
  providers = simulatorAdapters(sim.url, { retry });
});
afterAll(() => sim.stop());
afterEach(() => {
  expect(sim.state.createCount()).toBe(0);
  expect(sim.state.cancelCount()).toBe(0);
});

const seed = (spec: JobSpec) => sim.state.seedJob(spec);
const admin = (path: string, body?: unknown) =>
  fetch(`${sim.url}/__admin/${path}`, body === undefined ? {} : { method: "POST", body: JSON.stringify(body) });

describe("listing for reconciliation", () => {
  it("Replicate: follows the cursor within the time window", async () => {
    sim.state.listPageSize = 2;
    const t0 = clock.now() - 10 * 60 * 60 * 1_000;
    const ids = [0, 1, 2, 3, 4].map((i) => seed({ provider: "replicate", createdAt: t0 + i * 60_000 }).id);
    const window = { from: new Date(t0 + 60_000), to: new Date(t0 + 4 * 60_000) };
    const found = await providers.replicate.listJobs?.(window);
    expect(found).toMatchObject({ kind: "ok", complete: true });
    expect(found?.jobs.map((j) => j.providerJobId)).toEqual([ids[3], ids[2], ids[1]]);
    expect(await providers.replicate.listJobs?.({ ...window, maxPages: 1 })).toMatchObject({
      complete: false,
      pages: 1,
    });
    sim.state.listPageSize = 100;
  });

  it("fal: reads the request log of one endpoint, with inputs, and needs the model", async () => {
    const model = "fal-ai/minimax/video-01";
    const from = new Date(clock.now());
    const job = seed({ provider: "fal", model, input: { prompt: "a lighthouse at dusk" } });
    const found = await providers.fal.listJobs?.({ from, to: new Date(clock.now() + 1), model });
    expect(found).toMatchObject({
      kind: "ok",
      jobs: [{ providerJobId: job.id, input: { prompt: "a lighthouse at dusk" } }],
    });
    expect(await providers.fal.listJobs?.({ from, to: new Date() })).toMatchObject({
      kind: "unknown",
      reason: "model_required",
    });
  });
});

describe("listing Luma generations for reconciliation", () => {
  it("reads every page by offset until Luma says no more follow, keeping the window's generations", async () => {
    sim.state.listPageSize = 2;
    const t0 = clock.now() - 20 * 60 * 60 * 1_000;
    const ids = [0, 1, 2, 3, 4].map(
      (i) => seed({ provider: "luma", createdAt: t0 + i * 60_000, input: { prompt: `fox ${i}` } }).id,
    );
    const window = { from: new Date(t0 + 60_000), to: new Date(t0 + 4 * 60_000) };
    const found = await providers.luma.listJobs?.(window);
    expect(found).toMatchObject({ kind: "ok", complete: true });
    expect(found?.jobs.map((j) => j.providerJobId).sort()).toEqual([ids[1], ids[2], ids[3]].sort());
    expect(found?.jobs.find((j) => j.providerJobId === ids[2])).toMatchObject({
      model: "ray-2",
      input: { prompt: "fox 2" },
      status: "completed",
    });
    const partial = await providers.luma.listJobs?.({ ...window, maxPages: 1 });
    expect(partial).toMatchObject({ kind: "ok", complete: false, pages: 1 });
    sim.state.listPageSize = 100;
  });

  it("hides a generation the lagging list does not show yet, and a faulted page is unknown, never empty", async () => {
    const from = new Date(clock.now() - 1);
    const job = seed({ provider: "luma", notFoundForMs: 60_000 });
    const window = () => ({ from, to: new Date(clock.now() + 1) });
    const hidden = await providers.luma.listJobs?.(window());
    expect(hidden).toMatchObject({ kind: "ok", complete: true });
    expect(hidden?.jobs.map((j) => j.providerJobId)).not.toContain(job.id);
    clock.advance(60_000);
    const shown = await providers.luma.listJobs?.(window());
    expect(shown?.jobs.map((j) => j.providerJobId)).toContain(job.id);
    sim.state.faults.add({ match: { provider: "luma", route: "list" }, fault: { type: "http_error", status: 502 } });
    expect(await providers.luma.listJobs?.(window())).toMatchObject({ kind: "unknown" });
    sim.state.faults.clear();
  });

  it("count a generation create, on either create path", async () => {
    const create = (path: string) =>
      fetch(`${sim.url}/luma/dream-machine/v1/${path}`, {
        method: "POST",
        headers: { authorization: "Bearer x", "content-type": "application/json" },
        body: JSON.stringify({ model: "ray-2", prompt: "a fox", duration: "5s" }),
      });
    expect((await create("generations/video")).status).toBe(201);
    const answer = await create("generations");
    expect(answer.status).toBe(201);
    const { id } = (await answer.json()) as { id: string };
    expect(sim.state.createCount("luma")).toBe(2);
    expect(await providers.luma.getJob({ providerJobId: id })).toMatchObject({ kind: "running" });
    sim.state.reset();
  });
});

describe("the create counter", () => {
  it("counts every create call the demo traffic makes, and an unknown token is refused, on admin routes too", async () => {
    const other = await startSimulator({ port: 0, token: "sim-token" });
    try {
      const post = (path: string, auth: string) =>
        fetch(`${other.url}${path}`, {
          method: "POST",
          headers: { authorization: auth },
          body: JSON.stringify({ input: {} }),
        });
      expect((await post("/replicate/v1/models/minimax/video-01/predictions", "Bearer sim-token")).status).toBe(201);
      expect((await post("/fal/fal-ai/kling-video/v2.5-turbo/pro/text-to-video", "Key sim-token")).status).toBe(200);
      expect((await post("/fal/fal-ai/kling-video", "Key wrong")).status).toBe(401);
      // Its admin routes answer for the provider too (seeded jobs, faults): the same token guards them.
      expect((await post("/__admin/jobs", "Bearer wrong")).status).toBe(401);
      expect((await fetch(`${other.url}/__admin/jobs`)).status).toBe(401);
      expect([other.state.createCount("replicate"), other.state.createCount("fal")]).toEqual([1, 2]);
      const job = [...other.state.jobs.values()][0];
      const wrongKey = simulatorAdapters(other.url, { retry }, "wrong");
      expect(await wrongKey.replicate.getJob({ providerJobId: job?.id ?? "" })).toMatchObject({
        reason: "unauthorised",
      });
    } finally {
      await other.stop();
    }
  });
});

describe("Runway's routes", () => {
  it("count a task create, and refuse a call that names no API version", async () => {
    const create = (version: Record<string, string>) =>
      fetch(`${sim.url}/runway/v1/text_to_video`, {
        method: "POST",
        headers: { authorization: "Bearer x", "content-type": "application/json", ...version },
        body: JSON.stringify({ model: "gen4.5", promptText: "a fox", ratio: "1280:720", duration: 5 }),
      });
    expect((await create({})).status).toBe(400);
    const answer = await create({ "x-runway-version": "2024-11-06" });
    expect(answer.status).toBe(200);
    const { id } = (await answer.json()) as { id: string };
    expect(sim.state.createCount("runway")).toBe(2);
    const unversioned = await fetch(`${sim.url}/runway/v1/tasks/${id}`);
    expect(unversioned.status).toBe(400);
    expect(await simulatorAdapters(sim.url, { retry }).runway.getJob({ providerJobId: id })).toMatchObject({
      kind: "running",
    });
    sim.state.reset();
  });
});

describe("Veo's routes", () => {
  it("count an operation create, read it by name, and refuse its video without the key", async () => {
    const keyed = await startSimulator({ port: 0, token: "sim-token", timings: { queuedMs: 0, runningMs: 0 } });
    try {
      const answer = await fetch(`${keyed.url}/veo/v1beta/models/veo-3.1-generate-preview:predictLongRunning`, {
        method: "POST",
        headers: { "x-goog-api-key": "sim-token", "content-type": "application/json" },
        body: JSON.stringify({ instances: [{ prompt: "a fox" }] }),
      });
      expect(answer.status).toBe(200);
      const { name } = (await answer.json()) as { name: string };
      expect(name).toMatch(/^models\/veo-3.1-generate-preview\/operations\/[a-z0-9]{12}$/);
      expect(keyed.state.createCount("veo")).toBe(1);
      const veo = simulatorAdapters(keyed.url, { retry }, "sim-token").veo;
      const done = await veo.getJob({ providerJobId: name });
      if (done.kind !== "completed" || !done.outputs[0]) throw new Error(`expected completed, got ${done.kind}`);
      expect((await fetch(done.outputs[0].url)).status).toBe(403);
      const copied = await veo.downloadOutput(done.outputs[0], new Writable({ write: (_c, _e, next) => next() }));
      expect(copied).toMatchObject({ ok: true });
    } finally {
      await keyed.stop();
    }
  });
});

describe("admin API", () => {
  it("seeds jobs, takes fault rules as JSON, reports stats and resets", async () => {
    const seeded = await admin("jobs", { provider: "replicate", outcome: "failed", queuedMs: 0, runningMs: 0 });
    const job = (await seeded.json()) as { id: string; expectedOutput: { sha256: string } };
    expect(seeded.status).toBe(201);
    expect(job.expectedOutput.sha256).toMatch(/^[0-9a-f]{64}$/);
    const rule = {
      match: { provider: "replicate", route: "status", jobId: job.id },
      fault: { type: "http_error", status: 500 },
      times: 1,
    };
    expect((await admin("faults", { rules: [rule] })).status).toBe(200);
    expect((await admin("faults", { rules: [{ fault: { type: "explode" } }] })).status).toBe(400);
    expect(await providers.replicate.getJob({ providerJobId: job.id })).toMatchObject({ kind: "failed" });
    const stats = (await (await admin("stats")).json()) as {
      faults: unknown[];
      requests: { method: string; path: string }[];
    };
    expect(stats.faults).toEqual([]);
    expect(stats.requests.filter((r) => r.path.endsWith(job.id))).toHaveLength(2);
    expect((await admin("reset", {})).status).toBe(200);
    expect(sim.state.jobs.size).toBe(0);
  });
});
