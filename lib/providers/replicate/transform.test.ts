import { describe, expect, it } from "vitest";
import { recordedPrediction as p, recordedList, recordedNotFound, recordedThrottled } from "./recorded";
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
