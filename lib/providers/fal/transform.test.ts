import { describe, expect, it } from "vitest";
import { recordedResult as r, recordedRequestsByEndpoint, recordedStatus as s } from "./recorded";
import { extractFiles, requestsPage, resultToStatus, statusToStep } from "./transform";

describe("statusToStep", () => {
  it("maps IN_QUEUE and IN_PROGRESS (HTTP 202) to running", () => {
    expect(statusToStep(202, s.inQueue)).toEqual({ kind: "running", providerStatus: "IN_QUEUE" });
    expect(statusToStep(202, s.inProgress)).toEqual({ kind: "running", providerStatus: "IN_PROGRESS" });
  });

  it("asks for the result on a plain COMPLETED and fails on a COMPLETED that carries an error", () => {
    expect(statusToStep(200, s.completed)).toEqual({ kind: "fetch_result" });
    expect(statusToStep(200, s.completedWithError)).toEqual({
      kind: "failed",
      providerStatus: "COMPLETED",
      reason: "request_timeout: Request timed out",
      canceled: false,
    });
  });

  it("reports 404 as not_found and anything unreadable as unknown", () => {
    expect(statusToStep(404, r.notFound)).toEqual({ kind: "not_found", httpStatus: 404 });
    expect(statusToStep(200, { status: "SOMETHING_NEW" }).kind).toBe("unknown");
    expect(statusToStep(200, "garbage").kind).toBe("unknown");
    expect(statusToStep(401, { detail: "Unauthorized" })).toMatchObject({ kind: "unknown", reason: "unauthorised" });
    expect(statusToStep(502, undefined)).toMatchObject({ kind: "unknown", reason: "http_502" });
  });
});

describe("resultToStatus", () => {
  it("maps a 200 result to completed with the File outputs", () => {
    expect(resultToStatus(200, r.video)).toEqual({
      kind: "completed",
      providerStatus: "COMPLETED",
      outputsRemoved: false,
      outputs: [
        { url: "https://v3.fal.media/files/rabbit/Xk2p_output.mp4", contentType: "video/mp4", size: 3_145_728 },
      ],
    });
  });

  it("treats the replayed model error as the job's failure", () => {
    expect(resultToStatus(500, r.requestError, "runner_server_error")).toMatchObject({
      kind: "failed",
      reason: "runner_server_error: Internal server error",
    });
    expect(resultToStatus(422, r.validationError)).toMatchObject({
      kind: "failed",
      reason: expect.stringMatching(/^content_policy_violation: /),
    });
  });

  it("does not guess when the error is about the call rather than the job", () => {
    expect(resultToStatus(500, { detail: "upstream connect error" })).toMatchObject({
      kind: "unknown",
      reason: "http_500",
    });
    expect(resultToStatus(400, r.stillRunning)).toMatchObject({ kind: "unknown", reason: "http_400" });
    expect(resultToStatus(404, r.notFound)).toMatchObject({ kind: "unknown", reason: "result_unavailable" });
    expect(resultToStatus(200, "not json")).toMatchObject({ kind: "unknown", reason: "malformed_response" });
  });
});

describe("extractFiles", () => {
  it("finds File objects in lists and nested objects", () => {
    const payload = {
      images: [{ url: "https://fal.media/a.png" }, { url: "ftp://x" }],
      extra: { clip: { url: "https://v3.fal.media/b.mp4" } },
    };
    expect(extractFiles(payload).map((f) => f.url)).toEqual(["https://fal.media/a.png", "https://v3.fal.media/b.mp4"]);
  });
});

describe("requestsPage", () => {
  it("reads the request log with its cursor", () => {
    const page = requestsPage(recordedRequestsByEndpoint);
    expect(page?.nextCursor).toBe("Mg==");
    expect(page?.jobs.map((j) => [j.status, j.providerStatus])).toEqual([
      ["completed", "200"],
      ["failed", "422"],
    ]);
    expect(page?.jobs[0]).toMatchObject({ createdAt: "2026-11-06T12:00:01Z", input: { prompt: expect.any(String) } });
  });

  it("stops when has_more is false and treats an unfinished request as running", () => {
    const last = requestsPage({
      items: [{ request_id: "x", sent_at: "2026-11-06T12:00:00Z", ended_at: null }],
      has_more: false,
      next_cursor: "Mw==",
    });
    expect(last).toEqual({ nextCursor: undefined, jobs: [expect.objectContaining({ status: "running" })] });
    expect(requestsPage({ detail: "Unauthorized" })).toBeUndefined();
  });
});

describe("every File shape fal's client types allow", () => {
  const outputsOf = (body: unknown) => {
    const status = resultToStatus(200, body);
    return status.kind === "completed" ? status.outputs : status;
  };

  it("reads lists of Files and a File nested deep under any key", () => {
    expect(outputsOf(r.videosList)).toEqual([
      { url: "https://v3.fal.media/files/koala/a_0.mp4", contentType: "video/mp4" },
      { url: "https://v3.fal.media/files/koala/a_1.mp4", contentType: "video/mp4" },
    ]);
    expect(outputsOf(r.deeplyNested)).toEqual([{ url: "https://v3.fal.media/files/lion/deep.mp4", size: 2048 }]);
    expect(extractFiles({ grid: [[{ url: "https://v3.fal.media/g.mp4" }]] })).toEqual([
      { url: "https://v3.fal.media/g.mp4" },
    ]);
  });

  it("reads a File whose url is a data: URI, or whose bytes are in file_data", () => {
    expect(outputsOf(r.dataUriFile)).toEqual([
      { url: "data:video/mp4;base64,AAAAGGZ0eXBtcDQy", contentType: "video/mp4" },
    ]);
    expect(outputsOf(r.fileData)).toEqual([
      { url: "data:video/mp4;base64,AAAAGGZ0eXBtcDQy", contentType: "video/mp4" },
    ]);
  });

  it("keeps a result with no File as evidence, without its prompt", () => {
    expect(resultToStatus(200, r.noFile)).toEqual({
      kind: "completed",
      providerStatus: "COMPLETED",
      outputs: [],
      outputsRemoved: false,
      evidence: { unreadableAnswer: { seed: 314159, has_nsfw_concepts: [false] } },
    });
  });

  it("strips a signed query and secrets from the answer it keeps", () => {
    const status = resultToStatus(200, { page: "https://x.example/a?sig=secret", api_key: "k-123" });
    expect(status).toMatchObject({
      evidence: { unreadableAnswer: { page: "https://x.example/a?[redacted]", api_key: "[redacted]" } },
    });
  });
});
