/**
 * Response shapes as published in Replicate's HTTP API reference (predictions.get / predictions.list,
 * data retention and rate-limit pages), with a video model's output. The transform tests and the
 * simulator are both checked against these, so the simulator cannot drift from the real API unnoticed.
 */
const base = {
  id: "gm3qorzdhgbfurvjtvhg6dckhu",
  model: "minimax/video-01",
  version: "5c7d5dc6dd8bf75c1acaa8565735e7986bc5b66206b55cca93cb72c9bf15ccaa",
  input: { prompt: "a red fox running through snow" },
  source: "api",
  urls: {
    get: "https://api.replicate.com/v1/predictions/gm3qorzdhgbfurvjtvhg6dckhu",
    cancel: "https://api.replicate.com/v1/predictions/gm3qorzdhgbfurvjtvhg6dckhu/cancel",
    web: "https://replicate.com/p/gm3qorzdhgbfurvjtvhg6dckhu",
  },
  created_at: "2026-11-06T12:00:00.000000Z",
  data_removed: false,
};

export const recordedPrediction = {
  starting: {
    ...base,
    status: "starting",
    logs: null,
    output: null,
    error: null,
    started_at: null,
    completed_at: null,
    metrics: {},
  },
  processing: {
    ...base,
    status: "processing",
    logs: "Generating frames...",
    output: null,
    error: null,
    started_at: "2026-11-06T12:00:04.100000Z",
    completed_at: null,
    metrics: {},
  },
  succeeded: {
    ...base,
    status: "succeeded",
    logs: "",
    output: "https://replicate.delivery/xezq/abc123/tmpq7x9.mp4",
    error: null,
    started_at: "2026-11-06T12:00:04.100000Z",
    completed_at: "2026-11-06T12:01:34.500000Z",
    metrics: { predict_time: 90.4, total_time: 94.5 },
  },
  succeededMany: {
    ...base,
    status: "succeeded",
    output: ["https://replicate.delivery/yhqm/one/out-0.mp4", "https://replicate.delivery/yhqm/two/out-1.mp4"],
    error: null,
    completed_at: "2026-11-06T12:01:34.500000Z",
  },
  /** After the retention hour: the prediction is still there, its output is not. */
  succeededRemoved: {
    ...base,
    status: "succeeded",
    output: null,
    data_removed: true,
    completed_at: "2026-11-06T12:01:34Z",
  },
  failed: {
    ...base,
    status: "failed",
    output: null,
    error: "CUDA out of memory",
    started_at: "2026-11-06T12:00:04.100000Z",
    completed_at: "2026-11-06T12:00:10.000000Z",
  },
  canceled: { ...base, status: "canceled", output: null, error: null, completed_at: "2026-11-06T12:00:10.000000Z" },
};

export const recordedNotFound = { title: "Not found", detail: "Not found.", status: 404 };
export const recordedThrottled = { detail: "Request was throttled. Expected available in 1 second.", status: 429 };

export const recordedList = {
  previous: null,
  next: "https://api.replicate.com/v1/predictions?cursor=cD0yMDI2LTExLTA2KzEyJTNBMDAlM0EwMC4wMDAwMDAlMkIwMCUzQTAw",
  results: [recordedPrediction.succeeded, { ...recordedPrediction.processing, id: "q7r2m0vb8hrma0cjx3ctrc1v3w" }],
};
