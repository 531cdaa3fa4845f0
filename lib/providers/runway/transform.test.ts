import { describe, expect, it } from "vitest";
import { recordedTaskWithCost as c, recordedNotFound, recordedUnauthorised, recordedTask as t } from "./recorded";
import { outputsOf, taskToStatus } from "./transform";

describe("taskToStatus", () => {
  it("maps PENDING, THROTTLED and RUNNING to running", () => {
    expect(taskToStatus(200, t.pending)).toEqual({ kind: "running", providerStatus: "PENDING" });
    expect(taskToStatus(200, t.throttled)).toEqual({ kind: "running", providerStatus: "THROTTLED" });
    expect(taskToStatus(200, t.running)).toEqual({ kind: "running", providerStatus: "RUNNING" });
  });

  it("maps SUCCEEDED to completed with the output URLs, leaving their expiry to the caller", () => {
    expect(taskToStatus(200, t.succeeded)).toEqual({
      kind: "completed",
      providerStatus: "SUCCEEDED",
      outputsRemoved: false,
      outputs: [{ url: t.succeeded.output[0] }],
    });
  });

  it("maps FAILED to failed with the code and reason, and CANCELLED to a cancelled failure", () => {
    expect(taskToStatus(200, t.failed)).toEqual({
      kind: "failed",
      providerStatus: "FAILED",
      reason: "SAFETY.INPUT.TEXT: The input text was flagged by our content moderation system.",
      canceled: false,
    });
    expect(taskToStatus(200, t.failedWithoutCode)).toMatchObject({ reason: "An unexpected error occurred." });
    expect(taskToStatus(200, t.cancelled)).toEqual({
      kind: "failed",
      providerStatus: "CANCELLED",
      reason: "cancelled",
      canceled: true,
    });
  });

  it("reports the documented 404 as not_found", () => {
    expect(taskToStatus(404, recordedNotFound)).toEqual({ kind: "not_found", httpStatus: 404 });
  });

  it("never turns an answer it cannot read into a failure", () => {
    expect(taskToStatus(401, recordedUnauthorised)).toMatchObject({ kind: "unknown", reason: "unauthorised" });
    expect(taskToStatus(429, { error: "Too many requests" })).toMatchObject({ kind: "unknown", reason: "http_429" });
    expect(taskToStatus(502, undefined)).toMatchObject({ kind: "unknown", reason: "http_502" });
    expect(taskToStatus(200, { ...t.running, status: "PROCESSING" })).toMatchObject({
      kind: "unknown",
      reason: "unrecognised_status:PROCESSING",
    });
    expect(taskToStatus(200, { ...t.succeeded, output: undefined })).toMatchObject({ reason: "malformed_response" });
    expect(taskToStatus(200, "<html>bad gateway</html>").kind).toBe("unknown");
  });
});

describe("outputsOf", () => {
  it("keeps only http(s) URLs", () => {
    expect(outputsOf(["https://a/v.mp4", 5, null, "ftp://x", "http://b/w.mp4"])).toEqual([
      { url: "https://a/v.mp4" },
      { url: "http://b/w.mp4" },
    ]);
  });
});

describe("the billing a task reports (TaskRetrieveResponse)", () => {
  it("keeps cost.credits on a failed and a cancelled task, which stays cancelled", () => {
    expect(taskToStatus(200, c.failed)).toEqual({
      kind: "failed",
      providerStatus: "FAILED",
      reason: "SAFETY.INPUT.TEXT: The input text was flagged by our content moderation system.",
      canceled: false,
      evidence: { credits: 0 },
    });
    expect(taskToStatus(200, c.cancelled)).toEqual({
      kind: "failed",
      providerStatus: "CANCELLED",
      reason: "cancelled",
      canceled: true,
      evidence: { credits: 25 },
    });
  });

  it("keeps the credits of a success, and an estimate where that is all a task gives", () => {
    expect(taskToStatus(200, c.succeeded)).toMatchObject({ kind: "completed", evidence: { credits: 50 } });
    expect(taskToStatus(200, { ...c.failed, cost: undefined, estimatedCost: { credits: 40 } })).toMatchObject({
      evidence: { estimatedCredits: 40 },
    });
    expect(taskToStatus(200, c.running)).toEqual({ kind: "running", providerStatus: "RUNNING" });
    expect(taskToStatus(200, { ...c.failed, cost: { credits: "lots" } })).not.toHaveProperty("evidence");
  });

  it("keeps a success whose output names nothing fetchable as evidence", () => {
    expect(taskToStatus(200, c.succeededWithoutUrl)).toEqual({
      kind: "completed",
      providerStatus: "SUCCEEDED",
      outputs: [],
      outputsRemoved: false,
      evidence: { credits: 50, unreadableAnswer: { output: [] } },
    });
  });
});
