/**
 * Response shapes of Runway's `GET /v1/tasks/{id}` as its API reference publishes them (the task
 * object of API version 2024-11-06: one variant per status, "Output formats", "API errors"), for a
 * video model. The transform tests and the simulator are both checked against these, so the
 * simulator cannot drift from the real API unnoticed.
 */
const id = "d2e3d1f4-1b3c-4b5c-8d46-1c1d7ee86892";
const createdAt = "2026-11-06T12:00:00.335Z";

export const recordedTaskId = id;

export const recordedTask = {
  pending: { id, createdAt, status: "PENDING" },
  /** Over the organisation's concurrency limit: stored, not yet enqueued ("Usage tiers and limits"). */
  throttled: { id, createdAt, status: "THROTTLED" },
  running: { id, createdAt, status: "RUNNING", progress: 0.42 },
  succeeded: {
    id,
    createdAt,
    status: "SUCCEEDED",
    output: [
      "https://dnznrvs05pmza.cloudfront.net/2e4f6b1a-9c3d-4e8f-a1b2-c3d4e5f60718.mp4?_jwt=eyJhbGciOiJIUzI1NiJ9.e30.sig",
    ],
  },
  failed: {
    id,
    createdAt,
    status: "FAILED",
    failure: "The input text was flagged by our content moderation system.",
    failureCode: "SAFETY.INPUT.TEXT",
  },
  /** failureCode is optional on a failed task. */
  failedWithoutCode: { id, createdAt, status: "FAILED", failure: "An unexpected error occurred." },
  /** "A cancelled or deleted task". */
  cancelled: { id, createdAt, status: "CANCELLED" },
};

/**
 * The same statuses as `TaskRetrieveResponse` types them in @runwayml/sdk@4.20.1
 * (resources/tasks.d.ts): every ending carries `cost: { credits }` and the open statuses
 * `estimatedCost: { credits }`, the billing evidence a failed or cancelled task still has.
 */
export const recordedTaskWithCost = {
  pending: { ...recordedTask.pending, estimatedCost: { credits: 50 } },
  throttled: { ...recordedTask.throttled, estimatedCost: { credits: 50 } },
  running: { ...recordedTask.running, estimatedCost: { credits: 50 } },
  succeeded: { ...recordedTask.succeeded, cost: { credits: 50 } },
  failed: { ...recordedTask.failed, cost: { credits: 0 } },
  cancelled: { ...recordedTask.cancelled, cost: { credits: 25 } },
  /** A success whose output list names nothing fetchable. */
  succeededWithoutUrl: { ...recordedTask.succeeded, output: [], cost: { credits: 50 } },
};

/**
 * 404: "the referenced resource is not available" (also a deleted or aborted task, which cannot be
 * fetched again). 401: "The provided API key is not valid." Neither body is documented (only a 400's
 * `error` member is); the transform reads the status code alone.
 */
export const recordedNotFound = { error: "Not found" };
export const recordedUnauthorised = { error: "Unauthorized" };
