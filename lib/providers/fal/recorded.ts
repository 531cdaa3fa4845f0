/**
 * Response shapes from fal's queue and platform API references (queue status / result, request
 * error types, "List requests by endpoint"), for a video endpoint. Status answers come with HTTP 202
 * while queued or running and 200 once COMPLETED; the result endpoint replays the model's own
 * status code, so a failed generation comes back as an error response carrying `error_type`.
 */
const id = "80e732af-660e-45cd-bd63-580e4f2a94cc";
const app = "https://queue.fal.run/fal-ai/kling-video";
const urls = {
  response_url: `${app}/requests/${id}`,
  status_url: `${app}/requests/${id}/status`,
  cancel_url: `${app}/requests/${id}/cancel`,
};

export const recordedRequestId = id;

export const recordedStatus = {
  inQueue: { status: "IN_QUEUE", request_id: id, queue_position: 2, ...urls, logs: null },
  inProgress: {
    status: "IN_PROGRESS",
    request_id: id,
    ...urls,
    logs: [{ message: "Generating video", level: "INFO", source: "user", timestamp: "2026-11-06T12:00:05Z" }],
  },
  completed: { status: "COMPLETED", request_id: id, ...urls, logs: null, metrics: { inference_time: 88.2 } },
  /** Newer queue answers carry the failure on the status itself. */
  completedWithError: {
    status: "COMPLETED",
    request_id: id,
    ...urls,
    logs: null,
    metrics: {},
    error: "Request timed out",
    error_type: "request_timeout",
  },
};

export const recordedResult = {
  video: {
    video: {
      url: "https://v3.fal.media/files/rabbit/Xk2p_output.mp4",
      content_type: "video/mp4",
      file_name: "output.mp4",
      file_size: 3_145_728,
    },
    seed: 314159,
  },
  /** Served with HTTP 500 and `X-Fal-Error-Type: runner_server_error`. */
  requestError: { detail: "Internal server error", error_type: "runner_server_error" },
  /** Served with HTTP 422: the model refused the input (validation or content policy). */
  validationError: {
    detail: [
      {
        loc: ["body", "prompt"],
        msg: "The content could not be processed because it contained material flagged by a content checker.",
        type: "content_policy_violation",
      },
    ],
  },
  /**
   * `File` in @fal-ai/client@1.10.1 (src/types/endpoints.d.ts) is `{ url, content_type?, file_name?,
   * file_size?, file_data? }`; outputs hold one under a model's own key, or lists of them.
   */
  videosList: {
    videos: [
      { url: "https://v3.fal.media/files/koala/a_0.mp4", content_type: "video/mp4", file_name: "a_0.mp4" },
      { url: "https://v3.fal.media/files/koala/a_1.mp4", content_type: "video/mp4", file_name: "a_1.mp4" },
    ],
    seed: 1,
  },
  /** A `VideoFile` five levels down, under keys no other model uses. */
  deeplyNested: {
    output: { clips: { final: { render: { url: "https://v3.fal.media/files/lion/deep.mp4", file_size: 2048 } } } },
  },
  /** Sync mode: the File's url is a data: URI. */
  dataUriFile: {
    video: { url: "data:video/mp4;base64,AAAAGGZ0eXBtcDQy", content_type: "video/mp4", file_name: "output.mp4" },
  },
  /** A File carrying its bytes in `file_data` (base64) with no fetchable url. */
  fileData: {
    video: { url: "", file_data: "AAAAGGZ0eXBtcDQy", content_type: "video/mp4", file_name: "output.mp4" },
  },
  /** A result with no File at all. */
  noFile: { seed: 314159, has_nsfw_concepts: [false], prompt: "a red fox" },
  stillRunning: { detail: "Request is still in progress" },
  notFound: { detail: "Request not found" },
};

export const recordedRequestsByEndpoint = {
  items: [
    {
      request_id: id,
      endpoint_id: "fal-ai/kling-video/v2.5-turbo/pro/text-to-video",
      sent_at: "2026-11-06T12:00:01Z",
      started_at: "2026-11-06T12:00:05Z",
      ended_at: "2026-11-06T12:01:33Z",
      status_code: 200,
      duration: 88.2,
      json_input: { prompt: "a red fox running through snow" },
    },
    {
      request_id: "5b8e1f02-2c3a-44d8-a7be-9f0c4d6a7e88",
      endpoint_id: "fal-ai/kling-video/v2.5-turbo/pro/text-to-video",
      sent_at: "2026-11-06T12:02:00Z",
      started_at: "2026-11-06T12:02:03Z",
      ended_at: "2026-11-06T12:02:09Z",
      status_code: 422,
      duration: 6.1,
    },
  ],
  next_cursor: "Mg==",
  has_more: true,
};
