import { isHttpUrl, isObject, nonEmptyText } from "../json";
import type { JobStatus, OutputRef } from "../types";

/**
 * "Generated videos are stored on the server for 2 days, after which they are removed" (Veo guide,
 * Limitations). The operation carries no completion time, so the bound is counted from the answer
 * that reports it done: late by however long the operation waited for us (as for fal).
 */
export const VEO_OUTPUT_RETENTION_SECONDS = 2 * 24 * 60 * 60;

const unknown = (reason: string, httpStatus: number): JobStatus => ({
  kind: "unknown",
  reason,
  attempts: 1,
  httpStatus,
});

/** The operation's status in words for the evidence: the guide has only `done` (true or absent/false). */
const RUNNING = "RUNNING";
const DONE = "DONE";
const ERROR = "ERROR";

/**
 * Pure mapping of one operation answer; transport failures never reach here. Only a 404 that
 * carries Google's own NOT_FOUND status is the documented "requested resource wasn't found": a bare
 * 404 (a proxy, a wrong base URL) proves nothing about the operation.
 */
export function operationToStatus(httpStatus: number, body: unknown): JobStatus {
  if (httpStatus === 404) {
    return googleStatus(body) === "NOT_FOUND" ? { kind: "not_found", httpStatus } : unknown("http_404", httpStatus);
  }
  if (httpStatus !== 200) {
    const denied = httpStatus === 401 || httpStatus === 403;
    return unknown(denied ? "unauthorised" : `http_${httpStatus}`, httpStatus);
  }
  if (!isObject(body) || typeof body.name !== "string") return unknown("malformed_response", httpStatus);
  if (body.done === undefined || body.done === false) return { kind: "running", providerStatus: RUNNING };
  if (body.done !== true) return unknown("malformed_response", httpStatus);
  if (isObject(body.error)) {
    const code = typeof body.error.code === "number" ? `code ${body.error.code}` : undefined;
    const reason = [code, nonEmptyText(body.error.message)].filter(Boolean).join(": ");
    return { kind: "failed", providerStatus: ERROR, reason: reason.slice(0, 500) || "failed", canceled: false };
  }
  const samples = samplesOf(body.response);
  // Done with no video and no error is not described by the guide: looked at by a person, not guessed.
  if (!samples) return unknown("done_without_samples", httpStatus);
  return { kind: "completed", providerStatus: DONE, outputs: outputsOf(samples), outputsRemoved: false };
}

function googleStatus(body: unknown): string | undefined {
  return isObject(body) && isObject(body.error) ? nonEmptyText(body.error.status) : undefined;
}

function samplesOf(response: unknown): unknown[] | undefined {
  if (!isObject(response) || !isObject(response.generateVideoResponse)) return undefined;
  const samples = response.generateVideoResponse.generatedSamples;
  return Array.isArray(samples) && samples.length > 0 ? samples : undefined;
}

/** Each sample's `video.uri`; anything else in the list is not a file to copy. */
export function outputsOf(samples: unknown[]): OutputRef[] {
  return samples
    .map((sample) => (isObject(sample) && isObject(sample.video) ? sample.video.uri : undefined))
    .filter(isHttpUrl)
    .map((url) => ({ url }));
}
