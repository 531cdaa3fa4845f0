import { createHash } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createFalClient, ApiError as FalApiError, type QueueStatus } from "@fal-ai/client";
import { ApiError as GenaiApiError, type GenerateVideosOperation, GoogleGenAI } from "@google/genai";
import RunwayML from "@runwayml/sdk";
import type { TaskRetrieveResponse } from "@runwayml/sdk/resources/tasks";
import LumaAI from "lumaai";
import Replicate, { type Prediction, validateWebhook } from "replicate";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { simulatorAdapters } from "@/lib/providers";
import { falKeysFromJwks, falSignedHeaders, verifyFalSignature } from "@/lib/providers/fal/webhook";
import { replicateWebhookSecret } from "@/lib/providers/webhook-keys";
import { manualClock, type RunningSimulator, startSimulator } from "@/verification/simulator";

// The five official clients, each driven against the simulator through the calls a producer makes
// with it: create, read, list where the provider has one, cancel or delete, download where the
// client has one, and webhook verification where it ships one. Each assertion is on a shape the
// client's types promise or on what the client itself does with the answer, so the simulator
// dropping a route or a field a client needs fails here.
//
// Outputs: the simulator runs plain http, and its `outputUrl` option writes another origin into
// output URLs. Here that origin is https (`OUTPUTS`), which is what Replicate's FileOutput and
// genai's files.download need; TLS itself is not served: Replicate's FileOutput fetches through the
// client's own `fetch` option, which sends the https origin to the simulator, and genai's download
// takes only the file's ID from the URI and asks its own base URL for the bytes.
const TOKEN = "sim-contract-token";
const OUTPUTS = "https://outputs.simulator.test";
const clock = manualClock();
let sim: RunningSimulator;
let dir: string;

beforeAll(async () => {
  sim = await startSimulator({
    port: 0,
    token: TOKEN,
    clock,
    outputUrl: OUTPUTS,
    manualWebhooks: true,
    timings: { queuedMs: 1_000, runningMs: 4_000, outputBytes: 2_048 },
  });
  dir = await mkdtemp(path.join(tmpdir(), "official-client-contract-"));
});
afterAll(async () => {
  await sim.stop();
  await rm(dir, { recursive: true, force: true });
});
beforeEach(() => sim.state.reset());

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
const expected = (jobId: string) => sim.state.expectedOutput(jobId)?.sha256;
/** Where the outputs' https origin is served from in this test: the simulator itself. */
const toSimulator = (url: string) => url.replace(OUTPUTS, sim.url);
const fetchViaFront: typeof fetch = (input, init) =>
  fetch(toSimulator(input instanceof Request ? input.url : String(input)), init);
/** What a webhook sender put on the wire, caught instead of sent. */
type Caught = { url: string; headers: Record<string, string>; body: string };
const catcher = (caught: Caught[]): typeof fetch =>
  (async (input: string | URL | Request, init?: RequestInit) => {
    caught.push({
      url: String(input),
      headers: Object.fromEntries(Object.entries(init?.headers ?? {})) as Record<string, string>,
      body: String(init?.body),
    });
    return new Response(null, { status: 200 });
  }) as typeof fetch;

describe("replicate 1.4.0", () => {
  const replicate = () =>
    new Replicate({ auth: TOKEN, baseUrl: `${sim.url}/replicate/v1`, fetch: fetchViaFront, useFileOutput: true });
  const model = "minimax/video-01";

  it("creates, reads, lists, cancels, and names the model on a create by version", async () => {
    const client = replicate();
    const created: Prediction = await client.predictions.create({ model, input: { prompt: "a fox" } });
    expect(created).toMatchObject({ status: "starting", model, source: "api", data_removed: false });
    expect(created.urls).toMatchObject({ get: expect.any(String), cancel: expect.any(String) });

    clock.advance(5_000);
    const done = await client.predictions.get(created.id);
    expect(done).toMatchObject({
      id: created.id,
      status: "succeeded",
      output: `${OUTPUTS}/delivery/replicate/${created.id}/output.mp4`,
    });

    const page = await client.predictions.list();
    expect(page.results.map((p) => p.id)).toEqual([created.id]);

    // Replicate reports `owner/name` for a create by version, never the version ID.
    const byVersion = await client.predictions.create({ version: done.version, input: { prompt: "a fox" } });
    expect(byVersion).toMatchObject({ model, version: done.version });
    const canceled = await client.predictions.cancel(byVersion.id);
    expect(canceled).toMatchObject({ id: byVersion.id, status: "canceled" });
    expect(await client.predictions.get(byVersion.id)).toMatchObject({ status: "canceled", output: null });
    expect(sim.state.cancelCount("replicate")).toBe(1);
  });

  // Decision 076: "Read job costs" for Replicate prices a prediction's `metrics` read through the
  // product's adapter. The official client, typed by Replicate, must read the same figures.
  it("returns each ending's metrics as the adapter reads them for the usage import", async () => {
    const adapter = simulatorAdapters(
      sim.url,
      { retry: { maxAttempts: 1, perAttemptTimeoutMs: 2_000 } },
      TOKEN,
    ).replicate;
    const endings = (["succeeded", "failed"] as const).map((outcome) =>
      sim.state.seedJob({ provider: "replicate", model, outcome, input: { prompt: "a fox", duration: 6 } }),
    );
    clock.advance(5_000);
    for (const job of endings) {
      const prediction = await replicate().predictions.get(job.id);
      const read = await adapter.jobMetrics?.({ providerJobId: job.id, model });
      expect(read, job.outcome).toMatchObject({ kind: "ok", succeeded: prediction.status === "succeeded" });
      if (read?.kind !== "ok") continue;
      const measured = prediction.metrics as { predict_time?: number; video_output_duration_seconds?: number };
      expect([read.runSeconds, read.outputSeconds], job.outcome).toEqual([
        measured.predict_time,
        measured.video_output_duration_seconds,
      ]);
    }
  });

  it("run() wraps the https output in a FileOutput whose bytes are the job's", async () => {
    const running = replicate().run(model, { input: { prompt: "a fox" }, wait: { mode: "poll", interval: 10 } });
    // The job finishes once the simulator's clock passes its run time, after run() has created it.
    while (sim.state.createCount("replicate") === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    clock.advance(5_000);
    const output = await running;
    // FileOutput wraps only https: and data: URLs; an http output would come back a plain string.
    expect(output).toHaveProperty("blob");
    const file = output as { url(): URL; blob(): Promise<Blob> };
    expect(file.url().protocol).toBe("https:");
    const [job] = sim.state.jobs.values();
    const bytes = new Uint8Array(await (await file.blob()).arrayBuffer());
    expect(sha256(bytes)).toBe(expected(job?.id ?? ""));
  });

  it("reads the webhook secret, and validateWebhook accepts the simulator's signed webhook", async () => {
    const client = replicate();
    const { key } = await client.webhooks.default.secret.get();
    expect(key).toBe(sim.webhooks.replicateSecret);
    // The product's own live read of the secret (no secret configured, only the API token) finds the same key.
    expect(await replicateWebhookSecret({ apiToken: TOKEN, baseUrl: `${sim.url}/replicate` })).toBe(key);
    await client.predictions.create({ model, input: { prompt: "a fox" }, webhook: "https://shop.test/hook" });
    const [held] = sim.state.webhooks.takeHeld();
    if (!held) throw new Error("no webhook held");
    clock.advance(5_000);
    const caught: Caught[] = [];
    const noFaults = { duplicate: false, lateProcessing: false, badSignatureFirst: false, delayMs: 0 };
    await sim.state.webhooks.deliver(held.job, held.url, held.body, noFaults, { fetchImpl: catcher(caught) });
    const [sent] = caught;
    if (!sent) throw new Error("no webhook sent");
    const signed = {
      id: sent.headers["webhook-id"] ?? "",
      timestamp: sent.headers["webhook-timestamp"] ?? "",
      signature: sent.headers["webhook-signature"] ?? "",
      body: sent.body,
    };
    expect(await validateWebhook({ ...signed, secret: key })).toBe(true);
    expect(await validateWebhook({ ...signed, body: `${sent.body} `, secret: key })).toBe(false);
    expect(JSON.parse(sent.body)).toMatchObject({ id: held.job.id, status: "succeeded", model });
  });

  it("reads a missing prediction's problem JSON into its error", async () => {
    const error = await replicate()
      .predictions.get("missingpredictionid0000000")
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ response: { status: 404 } });
    expect(String((error as Error).message)).toContain('"title":"Not found"');
  });
});

describe("@fal-ai/client 1.10.1", () => {
  const endpoint = "fal-ai/kling-video/v2.5-turbo/pro/text-to-video";
  const fal = () =>
    createFalClient({
      credentials: TOKEN,
      requestMiddleware: async (request) => ({
        ...request,
        url: request.url.replace("https://queue.fal.run", `${sim.url}/fal`),
      }),
    });

  it("submits, reads the status with logs, reads the result, and cancels", async () => {
    const client = fal();
    const queued = await client.queue.submit(endpoint, { input: { prompt: "a fox" } });
    expect(queued).toMatchObject({ request_id: expect.any(String), status_url: expect.any(String) });
    const waiting: QueueStatus = await client.queue.status(endpoint, { requestId: queued.request_id, logs: true });
    expect(waiting.status).toBe("IN_QUEUE");
    clock.advance(5_000);
    const done = await client.queue.status(endpoint, { requestId: queued.request_id, logs: true });
    if (done.status !== "COMPLETED") throw new Error(`not completed: ${done.status}`);
    // `logs: RequestLog[]` by the client's type: a list, never null, when asked for.
    expect(done.logs).toEqual([expect.objectContaining({ message: expect.any(String), level: expect.any(String) })]);
    const result = await client.queue.result(endpoint, { requestId: queued.request_id });
    expect(result).toMatchObject({
      requestId: queued.request_id,
      data: { video: { url: expect.stringMatching(/^https:/) } },
    });

    const other = await client.queue.submit(endpoint, { input: { prompt: "a fox" } });
    await client.queue.cancel(endpoint, { requestId: other.request_id });
    clock.advance(5_000);
    const cancelled = await client.queue.result(endpoint, { requestId: other.request_id }).catch((e: unknown) => e);
    expect(cancelled).toBeInstanceOf(FalApiError);
    expect(cancelled).toMatchObject({ status: 499, body: { error_type: "client_cancelled" } });
    // A finished request cannot be cancelled: fal answers 400, which the client throws.
    const late = await client.queue.cancel(endpoint, { requestId: queued.request_id }).catch((e: unknown) => e);
    expect(late).toMatchObject({ status: 400, body: { status: "ALREADY_COMPLETED" } });
    expect(sim.state.cancelCount("fal")).toBe(2);
  });

  it("reads a missing request's `{ detail }` into its ApiError", async () => {
    const error = await fal()
      .queue.status(endpoint, { requestId: "8d0c1d6e-5a4f-4a59-9f7e-2d2d3b6f4b11" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FalApiError);
    expect(error).toMatchObject({ status: 404, body: { detail: "Request not found" } });
  });

  it("signs its webhook so the product's verifier accepts it (the client ships no verifier)", async () => {
    const client = fal();
    await client.queue.submit(endpoint, { input: { prompt: "a fox" }, webhookUrl: "https://shop.test/fal" });
    const [held] = sim.state.webhooks.takeHeld();
    if (!held) throw new Error("no webhook held");
    clock.advance(5_000);
    const caught: Caught[] = [];
    const noFaults = { duplicate: false, lateProcessing: false, badSignatureFirst: false, delayMs: 0 };
    await sim.state.webhooks.deliver(held.job, held.url, held.body, noFaults, { fetchImpl: catcher(caught) });
    const [sent] = caught;
    if (!sent) throw new Error("no webhook sent");
    const keys = falKeysFromJwks(await (await fetch(sim.webhooks.falJwksUrl)).json());
    const headers = falSignedHeaders((name) => sent.headers[name]);
    if (!headers) throw new Error("fal signature headers missing");
    expect(verifyFalSignature(keys, sent.body, headers)).toMatchObject({ accountId: "simulator-user" });
    expect(verifyFalSignature(keys, `${sent.body} `, headers)).toBeNull();
    expect(JSON.parse(sent.body)).toMatchObject({ request_id: held.job.id, status: "OK" });
  });
});

describe("@runwayml/sdk 4.20.1", () => {
  const runway = () => new RunwayML({ apiKey: TOKEN, baseURL: `${sim.url}/runway`, maxRetries: 0 });

  it("creates, reads each status with its cost, cancels a running task and deletes a finished one", async () => {
    const client = runway();
    const { id } = await client.textToVideo.create({
      model: "gen4.5",
      promptText: "a fox",
      ratio: "1280:720",
      duration: 5,
    });
    const pending = await client.tasks.retrieve(id);
    expect(pending).toMatchObject({ id, status: "PENDING", estimatedCost: { credits: 25 } });
    clock.advance(5_000);
    const done = await client.tasks.retrieve(id);
    if (done.status !== "SUCCEEDED") throw new Error(`not succeeded: ${done.status}`);
    expect(done).toMatchObject({ cost: { credits: 25 }, output: [expect.stringMatching(/^https:/)] });

    const other = await client.textToVideo.create({
      model: "gen4.5",
      promptText: "a fox",
      ratio: "1280:720",
      duration: 5,
    });
    clock.advance(2_000);
    expect(await client.tasks.retrieve(other.id)).toMatchObject({ status: "RUNNING", estimatedCost: { credits: 25 } });
    await client.tasks.delete(other.id);
    expect(await client.tasks.retrieve(other.id)).toMatchObject({ status: "CANCELLED", cost: { credits: 0 } });
    // Deleting a finished task removes it: Runway answers 404, its `{ error }` body in the client's error.
    await client.tasks.delete(id);
    const gone = await client.tasks.retrieve(id).catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(RunwayML.NotFoundError);
    expect(gone).toMatchObject({ status: 404, error: { error: "Not found" } });
    expect(sim.state.cancelCount("runway")).toBe(2);
  });

  // Decision 073: a usage import reads a task's `cost.credits` through the product's own adapter.
  // The official client, typed by Runway, must read the same figure from the same answer.
  it("returns each ending's cost.credits as the adapter reads it for the usage import", async () => {
    const adapter = simulatorAdapters(sim.url, { retry: { maxAttempts: 1, perAttemptTimeoutMs: 2_000 } }, TOKEN).runway;
    const endings = (["succeeded", "failed", "canceled"] as const).map((outcome) =>
      sim.state.seedJob({ provider: "runway", model: "gen4_turbo", outcome, input: { duration: 10 } }),
    );
    clock.advance(5_000);
    for (const job of endings) {
      const task: TaskRetrieveResponse = await runway().tasks.retrieve(job.id);
      if (!("cost" in task)) throw new Error(`${job.outcome}: no final cost on ${task.status}`);
      const status = await adapter.getJob({ providerJobId: job.id, model: "gen4_turbo" });
      const read = "evidence" in status ? status.evidence?.credits : undefined;
      expect([job.outcome, read], task.status).toEqual([job.outcome, task.cost.credits]);
    }
    const [succeeded] = endings;
    expect(await runway().tasks.retrieve(succeeded?.id ?? "")).toMatchObject({ cost: { credits: 50 } });
  });

  it("reads THROTTLED with its estimated cost", async () => {
    const job = sim.state.seedJob({ provider: "runway", throttled: true, input: { duration: 10 } });
    expect(await runway().tasks.retrieve(job.id)).toMatchObject({
      status: "THROTTLED",
      estimatedCost: { credits: 50 },
    });
  });
});

describe("lumaai 1.19.1", () => {
  const luma = () => new LumaAI({ authToken: TOKEN, baseURL: `${sim.url}/luma/dream-machine/v1`, maxRetries: 0 });

  it("creates, reads, lists, downloads and deletes", async () => {
    const client = luma();
    const created = await client.generations.create({ prompt: "a fox", model: "ray-2" });
    expect(created).toMatchObject({ state: "queued", model: "ray-2", generation_type: "video" });
    const id = created.id ?? "";
    clock.advance(5_000);
    const done = await client.generations.get(id);
    expect(done).toMatchObject({ id, state: "completed", assets: { video: expect.stringMatching(/^https:/) } });
    const list = await client.generations.list({ limit: 10 });
    expect(list.generations.map((g) => g.id)).toEqual([id]);
    // lumaai ships no download: the asset URL is fetched as it is.
    const bytes = new Uint8Array(await (await fetch(toSimulator(done.assets?.video ?? ""))).arrayBuffer());
    expect(sha256(bytes)).toBe(expected(id));
    await client.generations.delete(id);
    const gone = await client.generations.get(id).catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(LumaAI.NotFoundError);
    expect(gone).toMatchObject({ status: 404, error: { detail: "Generation not found" } });
    expect(sim.state.cancelCount("luma")).toBe(1);
  });
});

describe("@google/genai 3.3.0", () => {
  const model = "veo-3.1-generate-preview";
  // generateVideos runs only against Vertex AI in 3.x; the operation read and the file download are
  // the Gemini API's, through a client built for it.
  const vertex = () =>
    new GoogleGenAI({
      vertexai: true,
      apiKey: TOKEN,
      httpOptions: { baseUrl: `${sim.url}/veo`, apiVersion: "v1beta" },
    });
  const gemini = () =>
    new GoogleGenAI({ apiKey: TOKEN, httpOptions: { baseUrl: `${sim.url}/veo`, apiVersion: "v1beta" } });

  it("creates, reads the operation, and downloads the video by the file ID in its https URI", async () => {
    const operation: GenerateVideosOperation = await vertex().models.generateVideos({
      model,
      source: { prompt: "a fox" },
    });
    expect(operation.name).toMatch(new RegExp(`^models/${model}/operations/[a-z0-9]+$`));
    const client = gemini();
    expect(await client.operations.getVideosOperation({ operation })).toMatchObject({ name: operation.name });
    clock.advance(5_000);
    const done = await client.operations.getVideosOperation({ operation });
    expect(done.done).toBe(true);
    const video = done.response?.generatedVideos?.[0];
    expect(video?.video?.uri).toMatch(/^https:\/\/.*\/files\/[a-z0-9]+:download/);
    if (!video) throw new Error("no generated video");
    const downloadPath = path.join(dir, "veo.mp4");
    await client.files.download({ file: video, downloadPath });
    const id = operation.name?.split("/").at(-1) ?? "";
    expect(sha256(await readFile(downloadPath))).toBe(expected(id));
  });

  it("reads a missing operation's `{ error: { code, message, status } }` into its ApiError", async () => {
    const operation = { name: `models/${model}/operations/missing0000` } as GenerateVideosOperation;
    const error = await gemini()
      .operations.getVideosOperation({ operation })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GenaiApiError);
    expect(error).toMatchObject({ status: 404 });
    expect((error as Error).message).toContain("NOT_FOUND");
  });
});
