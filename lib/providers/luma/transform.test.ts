import { describe, expect, it } from "vitest";
import { recordedGeneration as g, recordedList, recordedNotFound, recordedUnauthorised } from "./recorded";
import { generationToStatus, listPage } from "./transform";

describe("generationToStatus", () => {
  it("maps queued and dreaming to running", () => {
    expect(generationToStatus(200, g.queued)).toEqual({ kind: "running", providerStatus: "queued" });
    expect(generationToStatus(200, g.dreaming)).toEqual({ kind: "running", providerStatus: "dreaming" });
  });

  it("maps completed to completed with the video URL, leaving no expiry since none is documented", () => {
    expect(generationToStatus(200, g.completed)).toEqual({
      kind: "completed",
      providerStatus: "completed",
      outputsRemoved: false,
      outputs: [{ url: g.completed.assets.video }],
    });
  });

  it("maps failed to failed with Luma's failure_reason", () => {
    expect(generationToStatus(200, g.failed)).toEqual({
      kind: "failed",
      providerStatus: "failed",
      reason: "Prompt not allowed because it contains blocked words",
      canceled: false,
    });
    expect(generationToStatus(200, { ...g.failed, failure_reason: null })).toMatchObject({ reason: "failed" });
  });

  it("reports a 404 as unknown: Luma documents no meaning for it", () => {
    expect(generationToStatus(404, recordedNotFound)).toEqual({
      kind: "unknown",
      reason: "http_404",
      attempts: 1,
      httpStatus: 404,
    });
  });

  it("never turns an answer it cannot read into a failure", () => {
    expect(generationToStatus(401, recordedUnauthorised)).toMatchObject({ kind: "unknown", reason: "unauthorised" });
    expect(generationToStatus(429, { detail: "Too many requests" })).toMatchObject({ reason: "http_429" });
    expect(generationToStatus(502, undefined)).toMatchObject({ kind: "unknown", reason: "http_502" });
    expect(generationToStatus(200, { ...g.dreaming, state: "paused" })).toMatchObject({
      kind: "unknown",
      reason: "unrecognised_status:paused",
    });
    expect(generationToStatus(200, { ...g.completed, assets: null })).toMatchObject({ reason: "malformed_response" });
    expect(generationToStatus(200, { ...g.completed, assets: { video: "ftp://x/v.mp4" } }).kind).toBe("unknown");
    expect(generationToStatus(200, "<html>bad gateway</html>").kind).toBe("unknown");
  });
});

describe("listPage", () => {
  it("reads each generation's id, time, model, state and request, and whether more follow", () => {
    expect(listPage(recordedList)).toEqual({
      jobs: [
        {
          providerJobId: g.completed.id,
          model: "ray-2",
          createdAt: g.completed.created_at,
          status: "completed",
          providerStatus: "completed",
          input: g.completed.request,
        },
      ],
      received: 1,
      hasMore: false,
    });
  });

  it("counts unreadable items so the next offset skips none, and refuses a page without generations", () => {
    const page = listPage({ generations: [g.queued, { id: "" }, 7], has_more: true });
    expect(page).toMatchObject({ received: 3, hasMore: true });
    expect(page?.jobs.map((j) => j.status)).toEqual(["running"]);
    expect(listPage({ detail: "nope" })).toBeUndefined();
  });

  it("takes the model from the request when the generation does not name it", () => {
    const { model: _model, ...withoutModel } = g.dreaming;
    expect(listPage({ generations: [withoutModel] })?.jobs[0]?.model).toBe("ray-2");
  });
});

describe("every asset a Generation may carry", () => {
  it("reads an image generation's image, and never takes the preview for the result", () => {
    expect(generationToStatus(200, g.completedImage)).toEqual({
      kind: "completed",
      providerStatus: "completed",
      outputs: [{ url: g.completedImage.assets.image }],
      outputsRemoved: false,
    });
    const preview = { ...g.completed, assets: { progress_video: "https://storage.cdn-luma.com/p.mp4" } };
    expect(generationToStatus(200, preview)).toMatchObject({ kind: "unknown", reason: "malformed_response" });
  });

  it("never takes a video generation's thumbnail for the paid video", () => {
    const thumbnailOnly = { ...g.completed, assets: { image: "https://storage.cdn-luma.com/t_thumb.jpg" } };
    expect(generationToStatus(200, thumbnailOnly)).toMatchObject({ kind: "unknown", reason: "malformed_response" });
  });
});
