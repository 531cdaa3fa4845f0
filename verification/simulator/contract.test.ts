import { describe, expect, it } from "vitest";
import { recordedResult, recordedStatus } from "../../lib/providers/fal/recorded";
import { resultToStatus, statusToStep } from "../../lib/providers/fal/transform";
import { recordedGeneration } from "../../lib/providers/luma/recorded";
import { generationToStatus } from "../../lib/providers/luma/transform";
import { recordedPrediction } from "../../lib/providers/replicate/recorded";
import { predictionToStatus } from "../../lib/providers/replicate/transform";
import { recordedTask, recordedTaskWithCost } from "../../lib/providers/runway/recorded";
import { taskToStatus } from "../../lib/providers/runway/transform";
import { recordedOperation } from "../../lib/providers/veo/recorded";
import { operationToStatus } from "../../lib/providers/veo/transform";
import { manualClock } from "./clock";
import { falResultAnswer, falStatusAnswer } from "./fal-routes";
import { DEFAULT_TIMINGS, type JobSpec } from "./jobs";
import { generationJson } from "./luma-routes";
import { predictionJson } from "./replicate-routes";
import { taskJson } from "./runway-routes";
import { SimulatorState } from "./state";
import { operationJson } from "./veo-routes";

// The simulator must speak the recorded shapes of the real APIs, or the integration tests would
// prove the adapters against a fiction. Same keys as the recordings, same normalised meaning.
const clock = manualClock();
const site = {
  state: new SimulatorState(clock, { ...DEFAULT_TIMINGS, queuedMs: 1_000, runningMs: 1_000 }),
  origin: "http://sim",
};
const keys = (value: object) => Object.keys(value).sort();
const seed = (spec: JobSpec) => site.state.seedJob({ ...spec, createdAt: clock.now() });

describe("simulated Replicate predictions", () => {
  it("have the recorded fields and map like the recordings at each step", () => {
    const job = seed({ provider: "replicate" });
    const starting = predictionJson(job, site);
    expect(keys(starting)).toEqual(keys(recordedPrediction.starting));
    expect(predictionToStatus(200, starting)).toEqual(predictionToStatus(200, recordedPrediction.starting));
    clock.advance(1_000);
    expect(predictionToStatus(200, predictionJson(job, site))).toEqual(
      predictionToStatus(200, recordedPrediction.processing),
    );
    clock.advance(1_000);
    expect(predictionToStatus(200, predictionJson(job, site))).toMatchObject({
      kind: "completed",
      outputsRemoved: false,
    });
    clock.advance(DEFAULT_TIMINGS.outputTtlMs);
    expect(predictionToStatus(200, predictionJson(job, site))).toMatchObject({
      kind: "completed",
      outputs: [],
      outputsRemoved: true,
    });
  });

  it("fail like the recorded failure", () => {
    const job = seed({
      provider: "replicate",
      outcome: "failed",
      queuedMs: 0,
      runningMs: 0,
      error: "CUDA out of memory",
    });
    expect(predictionToStatus(200, predictionJson(job, site))).toEqual(
      predictionToStatus(200, recordedPrediction.failed),
    );
  });
});

describe("simulated fal answers", () => {
  it("have the recorded status fields and codes", () => {
    const job = seed({ provider: "fal" });
    const queued = falStatusAnswer(site, job);
    expect([queued.code, keys(queued.body)]).toEqual([202, keys(recordedStatus.inQueue)]);
    clock.advance(1_000);
    expect(statusToStep(falStatusAnswer(site, job).code, falStatusAnswer(site, job).body)).toEqual(
      statusToStep(202, recordedStatus.inProgress),
    );
    expect(falResultAnswer(site, job)).toMatchObject({ code: 400, body: recordedResult.stillRunning });
    clock.advance(1_000);
    const done = falStatusAnswer(site, job);
    expect([done.code, keys(done.body)]).toEqual([200, keys(recordedStatus.completed)]);
    const result = falResultAnswer(site, job);
    expect(keys(result.body)).toEqual(keys(recordedResult.video));
    expect(resultToStatus(result.code, result.body)).toMatchObject({
      kind: "completed",
      outputs: [{ contentType: "video/mp4" }],
    });
  });

  it("replay failures the way the recordings do", () => {
    const job = seed({ provider: "fal", outcome: "failed", queuedMs: 0, runningMs: 0, errorOnStatus: true });
    const status = falStatusAnswer(site, job);
    expect(keys(status.body)).toEqual(keys(recordedStatus.completedWithError));
    const result = falResultAnswer(site, job);
    expect(keys(result.body)).toEqual(keys(recordedResult.requestError));
    expect(resultToStatus(result.code, result.body, result.headers?.["x-fal-error-type"])).toMatchObject({
      kind: "failed",
    });
  });
});

describe("simulated Runway tasks", () => {
  it("have the recorded fields of each status and map like the recordings", () => {
    const job = seed({ provider: "runway" });
    const pending = taskJson(job, site);
    // The fields @runwayml/sdk types, cost included (recordedTaskWithCost); the transform maps either alike.
    expect(keys(pending)).toEqual(keys(recordedTaskWithCost.pending));
    expect(taskToStatus(200, pending)).toEqual(taskToStatus(200, recordedTask.pending));
    clock.advance(1_000);
    const running = taskJson(job, site);
    expect(keys(running)).toEqual(keys(recordedTaskWithCost.running));
    expect(taskToStatus(200, running)).toEqual(taskToStatus(200, recordedTask.running));
    clock.advance(1_000);
    const done = taskJson(job, site);
    expect(keys(done)).toEqual(keys(recordedTaskWithCost.succeeded));
    expect(taskToStatus(200, done)).toMatchObject({ kind: "completed", outputs: [{ url: expect.any(String) }] });
  });

  it("fail and cancel like the recordings", () => {
    const failed = taskJson(seed({ provider: "runway", outcome: "failed", queuedMs: 0, runningMs: 0 }), site);
    expect(keys(failed)).toEqual(keys(recordedTaskWithCost.failed));
    expect(taskToStatus(200, failed)).toMatchObject({ kind: "failed", canceled: false });
    const cancelled = taskJson(seed({ provider: "runway", outcome: "canceled", queuedMs: 0, runningMs: 0 }), site);
    expect(keys(cancelled)).toEqual(keys(recordedTaskWithCost.cancelled));
    expect(taskToStatus(200, cancelled)).toMatchObject(taskToStatus(200, recordedTask.cancelled));
  });

  it("read THROTTLED while queued over the concurrency limit", () => {
    const throttled = taskJson(seed({ provider: "runway", throttled: true }), site);
    expect(keys(throttled)).toEqual(keys(recordedTaskWithCost.throttled));
    expect(taskToStatus(200, throttled)).toEqual(taskToStatus(200, recordedTask.throttled));
  });
});

describe("simulated Veo operations", () => {
  it("have the recorded fields while running and when done, and map like the recordings", () => {
    const job = seed({ provider: "veo" });
    const running = operationJson(job, site);
    expect(keys(running)).toEqual(keys(recordedOperation.running));
    expect(operationToStatus(200, running)).toEqual(operationToStatus(200, recordedOperation.running));
    clock.advance(2_000);
    const done = operationJson(job, site);
    expect(keys(done)).toEqual(keys(recordedOperation.done));
    expect(operationToStatus(200, done)).toMatchObject({ kind: "completed", outputs: [{ url: expect.any(String) }] });
    expect(done.name).toBe(`models/${job.model}/operations/${job.id}`);
  });

  it("finish with an error like the recording", () => {
    const failed = operationJson(seed({ provider: "veo", outcome: "failed", queuedMs: 0, runningMs: 0 }), site);
    expect(keys(failed)).toEqual(keys(recordedOperation.failed));
    expect(operationToStatus(200, failed)).toMatchObject({ kind: "failed", canceled: false });
  });
});

describe("simulated Luma generations", () => {
  it("have the recorded fields of each state and map like the recordings", () => {
    const job = seed({ provider: "luma" });
    const queued = generationJson(job, site);
    expect(keys(queued)).toEqual(keys(recordedGeneration.queued));
    expect(generationToStatus(200, queued)).toEqual(generationToStatus(200, recordedGeneration.queued));
    clock.advance(1_000);
    const dreaming = generationJson(job, site);
    expect(generationToStatus(200, dreaming)).toEqual(generationToStatus(200, recordedGeneration.dreaming));
    clock.advance(1_000);
    const done = generationJson(job, site);
    expect(keys(done)).toEqual(keys(recordedGeneration.completed));
    expect(generationToStatus(200, done)).toMatchObject({ kind: "completed", outputs: [{ url: expect.any(String) }] });
  });

  it("fail like the recordings", () => {
    const failed = generationJson(seed({ provider: "luma", outcome: "failed", queuedMs: 0, runningMs: 0 }), site);
    expect(keys(failed)).toEqual(keys(recordedGeneration.failed));
    expect(generationToStatus(200, failed)).toMatchObject({ kind: "failed", canceled: false });
  });
});
