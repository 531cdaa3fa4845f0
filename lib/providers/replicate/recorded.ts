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

/**
 * `Prediction.output` is typed `any` in Replicate's client (replicate@1.4.0, index.d.ts), which walks
 * it to any depth and takes every string starting `https:` or `data:` as a file (index.js, `run`).
 * These are the shapes that allows, as models publish them; each must name its file.
 */
const succeededWith = (output: unknown) => ({
  ...base,
  status: "succeeded",
  output,
  error: null,
  completed_at: "2026-11-06T12:01:34.500000Z",
});
/** The bytes of a (tiny) file as Replicate's sync mode hands them back. */
export const recordedDataUriBytes = Buffer.from("a tiny simulated mp4");
const dataUri = `data:video/mp4;base64,${recordedDataUriBytes.toString("base64")}`;

export const recordedOutputShapes = {
  /** A list of lists (a model returning one list of clips per input). */
  nestedLists: succeededWith([["https://replicate.delivery/xezq/a/out-0.mp4"]]),
  /** An object of lists of objects. */
  objectOfFiles: succeededWith({ videos: [{ url: "https://replicate.delivery/xezq/b/out-0.mp4" }], seed: 7 }),
  /** An object whose value is the URL itself. */
  namedVideo: succeededWith({ video: "https://replicate.delivery/xezq/c/out.mp4", duration: 5.04 }),
  /** Sync mode (`Prefer: wait`) may answer with the file itself. */
  dataUri: succeededWith(dataUri),
  /** A prediction that "succeeded" with nothing any client would take as a file. */
  noFile: succeededWith({ seed: 42, message: "done", prompt: "a red fox running through snow" }),
};

export const recordedNotFound = { title: "Not found", detail: "Not found.", status: 404 };
export const recordedThrottled = { detail: "Request was throttled. Expected available in 1 second.", status: 429 };

export const recordedList = {
  previous: null,
  next: "https://api.replicate.com/v1/predictions?cursor=cD0yMDI2LTExLTA2KzEyJTNBMDAlM0EwMC4wMDAwMDAlMkIwMCUzQTAw",
  results: [recordedPrediction.succeeded, { ...recordedPrediction.processing, id: "q7r2m0vb8hrma0cjx3ctrc1v3w" }],
};
