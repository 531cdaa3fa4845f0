import { describe, expect, it } from "vitest";
import {
  recordedPrediction as p,
  recordedDataUriBytes,
  recordedList,
  recordedNotFound,
  recordedThrottled,
  recordedOutputShapes as shapes,
} from "./recorded";
import { extractOutputs, listPage, predictionToStatus } from "./transform";

describe("predictionToStatus", () => {
  it("maps starting and processing to running", () => {
    expect(predictionToStatus(200, p.starting)).toEqual({ kind: "running", providerStatus: "starting" });
    expect(predictionToStatus(200, p.processing)).toEqual({ kind: "running", providerStatus: "processing" });
  });

  it("maps succeeded to completed with outputs that expire an hour after completion", () => {
    expect(predictionToStatus(200, p.succeeded)).toEqual({
      kind: "completed",
      providerStatus: "succeeded",
      outputsRemoved: false,
      outputs: [{ url: "https://replicate.delivery/xezq/abc123/tmpq7x9.mp4", expiresAt: "2026-11-06T13:01:34.500Z" }],
    });
    const many = predictionToStatus(200, p.succeededMany);
    expect(many.kind === "completed" && many.outputs.map((o) => o.url)).toHaveLength(2);
  });

  it("says so when the retention hour has removed the output", () => {
    expect(predictionToStatus(200, p.succeededRemoved)).toMatchObject({
      kind: "completed",
      outputs: [],
      outputsRemoved: true,
    });
  });

  it("maps failed and canceled to failed, keeping the provider's reason", () => {
    expect(predictionToStatus(200, p.failed)).toEqual({
      kind: "failed",
      providerStatus: "failed",
      reason: "CUDA out of memory",
      canceled: false,
    });
    expect(predictionToStatus(200, p.canceled)).toMatchObject({ kind: "failed", reason: "canceled", canceled: true });
  });

  it("reports 404 as not_found", () => {
    expect(predictionToStatus(404, recordedNotFound)).toEqual({ kind: "not_found", httpStatus: 404 });
  });

  it("never turns an answer it cannot read into a failure", () => {
    expect(predictionToStatus(200, { ...p.processing, status: "queued_somewhere" }).kind).toBe("unknown");
    expect(predictionToStatus(200, "<html>bad gateway</html>").kind).toBe("unknown");
    expect(predictionToStatus(200, undefined).kind).toBe("unknown");
    expect(predictionToStatus(401, { detail: "Unauthenticated" })).toMatchObject({
      kind: "unknown",
      reason: "unauthorised",
    });
    expect(predictionToStatus(429, recordedThrottled)).toMatchObject({ kind: "unknown", reason: "http_429" });
  });
});

describe("extractOutputs", () => {
  it("reads strings, lists and objects of URLs and ignores other values", () => {
    expect(extractOutputs(null)).toEqual([]);
    expect(extractOutputs("plain text answer")).toEqual([]);
    expect(extractOutputs({ video: "https://a/v.mp4", frames: ["https://a/1.png"], seconds: 5 })).toEqual([
      { url: "https://a/v.mp4" },
      { url: "https://a/1.png" },
    ]);
  });
});

describe("listPage", () => {
  it("reads jobs and keeps only the cursor of the next link", () => {
    const page = listPage(recordedList);
    expect(page?.nextCursor).toBe("cD0yMDI2LTExLTA2KzEyJTNBMDAlM0EwMC4wMDAwMDAlMkIwMCUzQTAw");
    expect(page?.jobs.map((j) => [j.providerJobId, j.status])).toEqual([
      ["gm3qorzdhgbfurvjtvhg6dckhu", "completed"],
      ["q7r2m0vb8hrma0cjx3ctrc1v3w", "running"],
    ]);
    expect(page?.jobs[0]).toMatchObject({ model: "minimax/video-01", createdAt: "2026-11-06T12:00:00.000000Z" });
  });

  it("has no next cursor on the last page and refuses a body without results", () => {
    expect(listPage({ ...recordedList, next: null })?.nextCursor).toBeUndefined();
    expect(listPage({ detail: "nope" })).toBeUndefined();
  });
});

describe("every output shape Replicate's client allows", () => {
  const expiresAt = "2026-11-06T13:01:34.500Z";
  const outputsOf = (body: unknown) => {
    const status = predictionToStatus(200, body);
    return status.kind === "completed" ? status.outputs : status;
  };

  it("reads a list of lists, an object of files and a named URL, in document order", () => {
    expect(outputsOf(shapes.nestedLists)).toEqual([{ url: "https://replicate.delivery/xezq/a/out-0.mp4", expiresAt }]);
    expect(outputsOf(shapes.objectOfFiles)).toEqual([
      { url: "https://replicate.delivery/xezq/b/out-0.mp4", expiresAt },
    ]);
    expect(outputsOf(shapes.namedVideo)).toEqual([{ url: "https://replicate.delivery/xezq/c/out.mp4", expiresAt }]);
    expect(
      extractOutputs({ a: [[["https://a/1.mp4"]], { b: { c: "https://a/2.mp4" } }], d: "https://a/3.mp4" }),
    ).toEqual([{ url: "https://a/1.mp4" }, { url: "https://a/2.mp4" }, { url: "https://a/3.mp4" }]);
  });

  it("reads a data: URI as the file itself, gone with the prediction's output after the retention hour", () => {
    expect(outputsOf(shapes.dataUri)).toEqual([
      { url: `data:video/mp4;base64,${recordedDataUriBytes.toString("base64")}`, expiresAt },
    ]);
  });

  it("keeps an answer with no file as bounded evidence without its prompt, never as a silent empty completion", () => {
    expect(predictionToStatus(200, shapes.noFile)).toEqual({
      kind: "completed",
      providerStatus: "succeeded",
      outputs: [],
      outputsRemoved: false,
      evidence: { unreadableAnswer: { output: { seed: 42, message: "done" } } },
    });
    // Removed outputs are a different finding (retention passed), not an unreadable answer.
    expect(predictionToStatus(200, p.succeededRemoved)).not.toHaveProperty("evidence");
  });
});
