/**
 * Response shapes of Luma's `GET /dream-machine/v1/generations/{id}` and `GET /generations` as its
 * API reference and SDK types publish them (the Generation object: id, generation_type, state,
 * failure_reason, created_at, assets, model, request; the list: generations, count, has_more, limit,
 * offset), for a video generation. The transform tests and the simulator are both checked against
 * these, so the simulator cannot drift from the real API unnoticed.
 */
const id = "7c1c7c6e-3a53-4c8e-9f0b-2b0f3c1d9e41";
const createdAt = "2026-11-06T12:00:00.335Z";
const request = {
  generation_type: "video",
  prompt: "a red fox running through snow",
  model: "ray-2",
  resolution: "720p",
  duration: "5s",
  aspect_ratio: "16:9",
};
const base = { id, generation_type: "video", created_at: createdAt, model: "ray-2", request };
/** Luma's reference documents no lifetime and no host for these URLs (docs/providers.md, "Luma"). */
const videoUrl = "https://storage.cdn-luma.com/dream_machine/5f3b1c2e/7c1c7c6e_video0.mp4";

export const recordedGenerationId = id;

export const recordedGeneration = {
  queued: { ...base, state: "queued", failure_reason: null, assets: null },
  dreaming: { ...base, state: "dreaming", failure_reason: null, assets: null },
  completed: {
    ...base,
    state: "completed",
    failure_reason: null,
    assets: { video: videoUrl, image: "https://storage.cdn-luma.com/dream_machine/5f3b1c2e/7c1c7c6e_thumb.jpg" },
  },
  /** `generation_type: "image"` (lumaai@1.19.1 `Generation`): the result is `assets.image`. */
  completedImage: {
    ...base,
    generation_type: "image",
    state: "completed",
    failure_reason: null,
    assets: { image: "https://storage.cdn-luma.com/dream_machine/5f3b1c2e/7c1c7c6e_image0.jpg" },
  },
  failed: {
    ...base,
    state: "failed",
    failure_reason: "Prompt not allowed because it contains blocked words",
    assets: null,
  },
};

export const recordedList = {
  generations: [recordedGeneration.completed],
  count: 1,
  has_more: false,
  limit: 100,
  offset: 0,
};

/**
 * 401: an invalid key. No error body is documented beyond a `detail` text, and no meaning is
 * documented for a 404 on a generation: the transform reads the status code alone.
 */
export const recordedUnauthorised = { detail: "Invalid API key provided" };
export const recordedNotFound = { detail: "Generation not found" };
