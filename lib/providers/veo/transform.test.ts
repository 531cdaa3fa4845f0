import { describe, expect, it } from "vitest";
import { operationPath } from "./adapter";
import {
  recordedOperation as op,
  recordedExhausted,
  recordedNotFound,
  recordedOperationName,
  recordedPermissionDenied,
} from "./recorded";
import { operationToStatus, outputsOf } from "./transform";

describe("operationToStatus", () => {
  it("maps an operation that is not done to running", () => {
    expect(operationToStatus(200, op.running)).toEqual({ kind: "running", providerStatus: "RUNNING" });
    expect(operationToStatus(200, op.runningExplicit)).toEqual({ kind: "running", providerStatus: "RUNNING" });
  });

  it("maps a done operation with samples to completed with each video's URI, leaving expiry to the caller", () => {
    expect(operationToStatus(200, op.done)).toEqual({
      kind: "completed",
      providerStatus: "DONE",
      outputsRemoved: false,
      outputs: [{ url: op.done.response.generateVideoResponse.generatedSamples[0]?.video.uri }],
    });
  });

  it("maps a done operation with an error to failed with its code and message", () => {
    expect(operationToStatus(200, op.failed)).toEqual({
      kind: "failed",
      providerStatus: "ERROR",
      reason: "code 3: The prompt could not be submitted: it violates the usage guidelines.",
      canceled: false,
    });
  });

  it("reports Google's documented 404 NOT_FOUND as not_found, and no other 404", () => {
    expect(operationToStatus(404, recordedNotFound)).toEqual({ kind: "not_found", httpStatus: 404 });
    expect(operationToStatus(404, "<html>Not Found</html>")).toMatchObject({ kind: "unknown", reason: "http_404" });
  });

  it("never turns an answer it cannot read into a failure", () => {
    expect(operationToStatus(403, recordedPermissionDenied)).toMatchObject({ kind: "unknown", reason: "unauthorised" });
    expect(operationToStatus(429, recordedExhausted)).toMatchObject({ kind: "unknown", reason: "http_429" });
    expect(operationToStatus(503, undefined)).toMatchObject({ kind: "unknown", reason: "http_503" });
    expect(operationToStatus(200, op.doneWithoutSamples)).toMatchObject({
      kind: "unknown",
      reason: "done_without_samples",
    });
    expect(operationToStatus(200, { ...op.done, done: "yes" })).toMatchObject({ reason: "malformed_response" });
    expect(operationToStatus(200, { done: true })).toMatchObject({ reason: "malformed_response" });
    expect(operationToStatus(200, "<html>bad gateway</html>").kind).toBe("unknown");
  });
});

describe("outputsOf", () => {
  it("keeps only samples with an http(s) video URI", () => {
    expect(
      outputsOf([{ video: { uri: "https://a/v.mp4" } }, { video: {} }, null, { video: { uri: "gs://b/w" } }]),
    ).toEqual([{ url: "https://a/v.mp4" }]);
  });
});

describe("operationPath", () => {
  it("keeps a Google operation name as the path under the base URL", () => {
    expect(operationPath(recordedOperationName)).toBe(recordedOperationName);
  });

  it("refuses a name that could leave the API's path or is not a name at all", () => {
    for (const bad of [
      "",
      "k3tq9x1cvb7m",
      "models/../operations/x",
      "models/a/operations/x?key=1",
      "models//x",
      "/models/a",
    ]) {
      expect(() => operationPath(bad)).toThrow(/Veo operation name/);
    }
  });
});

describe("every shape of a done operation (GenerateVideosOperation)", () => {
  it("reads a sample's inline bytes as a data: URI, on the wire and in the client's shape", () => {
    const inline = { url: "data:video/mp4;base64,AAAAGGZ0eXBtcDQy", contentType: "video/mp4" };
    expect(operationToStatus(200, op.doneInline)).toEqual({
      kind: "completed",
      providerStatus: "DONE",
      outputs: [inline],
      outputsRemoved: false,
    });
    expect(operationToStatus(200, op.clientShape)).toMatchObject({ kind: "completed", outputs: [inline] });
  });

  it("keeps the content filter's count and reasons beside the videos it let through", () => {
    expect(operationToStatus(200, op.donePartlyFiltered)).toEqual({
      kind: "completed",
      providerStatus: "DONE",
      outputs: [{ url: "https://generativelanguage.googleapis.com/v1beta/files/a:download" }],
      outputsRemoved: false,
      evidence: {
        filteredCount: 1,
        filteredReasons: ["The video could not be generated because it may violate the usage guidelines."],
      },
    });
  });

  it("reports every video withheld by the filter as a failure saying why, with the evidence kept", () => {
    expect(operationToStatus(200, op.doneAllFiltered)).toEqual({
      kind: "failed",
      providerStatus: "FILTERED",
      reason: "the content filter withheld 2 video(s): Celebrity or public figure; Unsafe content",
      canceled: false,
      evidence: { filteredCount: 2, filteredReasons: ["Celebrity or public figure", "Unsafe content"] },
    });
  });

  it("keeps samples it cannot read as evidence", () => {
    expect(operationToStatus(200, op.doneUnreadable)).toEqual({
      kind: "completed",
      providerStatus: "DONE",
      outputs: [],
      outputsRemoved: false,
      evidence: { unreadableAnswer: { generateVideoResponse: { generatedSamples: [{ video: {} }] } } },
    });
  });

  it("reports google.rpc.Code CANCELLED as cancelled, as Replicate's canceled and Runway's CANCELLED are", () => {
    expect(operationToStatus(200, op.cancelled)).toEqual({
      kind: "failed",
      providerStatus: "ERROR",
      reason: "code 1: Operation cancelled.",
      canceled: true,
    });
  });
});
