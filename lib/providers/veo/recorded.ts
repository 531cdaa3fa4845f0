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
   * Finished, with neither samples nor an error: the guide does not say what this means (a safety
   * filter is one guess), so it is not read as a failure.
   */
  doneWithoutSamples: { name, done: true, response: { generateVideoResponse: {} } },
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
