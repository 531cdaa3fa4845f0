/**
 * Answers of the Gemini API's `GET /v1beta/{operation name}` for a Veo generation, in the shape its
 * Veo guide (ai.google.dev/gemini-api/docs/video, REST examples) reads them: `name`, `done`, and when
 * done `response.generateVideoResponse.generatedSamples[].video.uri`, or `error` (a google.rpc.Status).
 * The transform tests and the simulator are both checked against these, so the simulator cannot
 * drift from them unnoticed. `metadata` is not described by the guide; the transform ignores it.
 */
const model = "veo-3.1-generate-preview";
const name = `models/${model}/operations/k3tq9x1cvb7m`;

export const recordedOperationName = name;

export const recordedOperation = {
  running: { name },
  /** `done: false` spelled out, as a client may also see it. */
  runningExplicit: { name, done: false },
  done: {
    name,
    done: true,
    response: {
      "@type": "type.googleapis.com/google.ai.generativelanguage.v1beta.PredictLongRunningResponse",
      generateVideoResponse: {
        generatedSamples: [
          { video: { uri: "https://generativelanguage.googleapis.com/v1beta/files/k3tq9x1cvb7m:download?alt=media" } },
        ],
      },
    },
  },
  /** Finished with a google.rpc.Status instead of a response. */
  failed: {
    name,
    done: true,
    error: { code: 3, message: "The prompt could not be submitted: it violates the usage guidelines." },
  },
  /**
   * Finished, with neither samples nor an error, and no filter count saying the content filter
   * withheld them: the guide does not say what this means, so it is not read as a failure.
   */
  doneWithoutSamples: { name, done: true, response: { generateVideoResponse: {} } },
  /**
   * A sample carrying its video inline: on the wire `video.encodedVideo` (base64) with `encoding`,
   * which @google/genai (`Video { uri?, videoBytes?, mimeType? }`) reads as `videoBytes`/`mimeType`.
   */
  doneInline: {
    name,
    done: true,
    response: {
      generateVideoResponse: {
        generatedSamples: [{ video: { encodedVideo: "AAAAGGZ0eXBtcDQy", encoding: "video/mp4" } }],
      },
    },
  },
  /** Some samples withheld by the content filter (`raiMediaFilteredCount`, `raiMediaFilteredReasons`). */
  donePartlyFiltered: {
    name,
    done: true,
    response: {
      generateVideoResponse: {
        generatedSamples: [{ video: { uri: "https://generativelanguage.googleapis.com/v1beta/files/a:download" } }],
        raiMediaFilteredCount: 1,
        raiMediaFilteredReasons: ["The video could not be generated because it may violate the usage guidelines."],
      },
    },
  },
  /** Every sample withheld: Google says why, and there is no video. */
  doneAllFiltered: {
    name,
    done: true,
    response: {
      generateVideoResponse: {
        raiMediaFilteredCount: 2,
        raiMediaFilteredReasons: ["Celebrity or public figure", "Unsafe content"],
      },
    },
  },
  /** Samples without a readable video (an empty `video`). */
  doneUnreadable: {
    name,
    done: true,
    response: { generateVideoResponse: { generatedSamples: [{ video: {} }] } },
  },
  /** Cancelled: google.rpc.Code 1, CANCELLED. */
  cancelled: { name, done: true, error: { code: 1, message: "Operation cancelled." } },
  /** The @google/genai client's own `GenerateVideosOperation`, `response.generatedVideos[].video`. */
  clientShape: {
    name,
    done: true,
    response: { generatedVideos: [{ video: { videoBytes: "AAAAGGZ0eXBtcDQy", mimeType: "video/mp4" } }] },
  },
};

/**
 * Error bodies in Google's shape (Gemini API troubleshooting guide: HTTP code and status). 404
 * NOT_FOUND is "the requested resource wasn't found"; 403 PERMISSION_DENIED a key without access;
 * 429 RESOURCE_EXHAUSTED the rate limit.
 */
export const recordedNotFound = {
  error: { code: 404, message: "Operation not found.", status: "NOT_FOUND" },
};
export const recordedPermissionDenied = {
  error: { code: 403, message: "Method doesn't allow unregistered callers.", status: "PERMISSION_DENIED" },
};
export const recordedExhausted = {
  error: { code: 429, message: "Resource has been exhausted (e.g. check quota).", status: "RESOURCE_EXHAUSTED" },
};
