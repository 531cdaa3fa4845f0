import { isHttpUrl, isObject, type JsonObject, nonEmptyText } from "../json";
import { inlineOutputUrl, unreadableAnswer } from "../outputs";
import type { AnswerEvidence, JobStatus, OutputRef } from "../types";

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
const FILTERED = "FILTERED";

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
    // google.rpc.Code 1 is CANCELLED: cancelled, as Replicate's `canceled` and Runway's CANCELLED are.
    const canceled = body.error.code === CANCELLED;
    return { kind: "failed", providerStatus: ERROR, reason: reason.slice(0, 500) || "failed", canceled };
  }
  const response = videoResponseOf(body.response);
  const evidence = response ? filterEvidence(response) : undefined;
  const samples = response ? samplesOf(response) : undefined;
  if (!samples) {
    // Every video withheld by the content filter: Google says why, and no video exists to copy.
    if (evidence?.filteredCount !== undefined && evidence.filteredCount > 0) {
      const why = evidence.filteredReasons?.join("; ") || "no reason given";
      const reason = `the content filter withheld ${evidence.filteredCount} video(s): ${why}`.slice(0, 500);
      return { kind: "failed", providerStatus: FILTERED, reason, canceled: false, evidence };
    }
    // Done with no video, no filter count and no error is not described by the guide: looked at by a person, not guessed.
    return unknown("done_without_samples", httpStatus);
  }
  const outputs = outputsOf(samples);
  const kept = { ...evidence, ...(outputs.length === 0 ? { unreadableAnswer: unreadableAnswer(body.response) } : {}) };
  return {
    kind: "completed",
    providerStatus: DONE,
    outputs,
    outputsRemoved: false,
    ...(Object.keys(kept).length > 0 ? { evidence: kept } : {}),
  };
}

/** google.rpc.Code CANCELLED. */
const CANCELLED = 1;

function googleStatus(body: unknown): string | undefined {
  return isObject(body) && isObject(body.error) ? nonEmptyText(body.error.status) : undefined;
}

/**
 * The Gemini API's `response.generateVideoResponse` (REST); the `@google/genai` client renames it
 * to `GenerateVideosResponse`, read here too so an answer recorded through the client is understood.
 */
function videoResponseOf(response: unknown): JsonObject | undefined {
  if (!isObject(response)) return undefined;
  if (isObject(response.generateVideoResponse)) return response.generateVideoResponse;
  return Array.isArray(response.generatedVideos) ? response : undefined;
}

function samplesOf(response: JsonObject): unknown[] | undefined {
  const samples = response.generatedSamples ?? response.generatedVideos;
  return Array.isArray(samples) && samples.length > 0 ? samples : undefined;
}

/** `raiMediaFilteredCount` and `raiMediaFilteredReasons`: videos the content filter withheld, and why. */
function filterEvidence(response: JsonObject): AnswerEvidence | undefined {
  const count = response.raiMediaFilteredCount;
  const reasons = Array.isArray(response.raiMediaFilteredReasons)
    ? response.raiMediaFilteredReasons.filter((r): r is string => typeof r === "string").map((r) => r.slice(0, 500))
    : [];
  const evidence: AnswerEvidence = {};
  if (typeof count === "number" && Number.isInteger(count) && count >= 0) evidence.filteredCount = count;
  if (reasons.length > 0) evidence.filteredReasons = reasons.slice(0, 10);
  return Object.keys(evidence).length > 0 ? evidence : undefined;
}

/**
 * Each sample's video: its `uri`, or its bytes given inline (`encodedVideo` with `encoding` on the
 * wire, `videoBytes` with `mimeType` in the client's `Video`), base64, as a `data:` URI the download
 * decodes. Anything else in the list is not a file to copy.
 */
export function outputsOf(samples: unknown[]): OutputRef[] {
  return samples.flatMap((sample): OutputRef[] => {
    const video = isObject(sample) && isObject(sample.video) ? sample.video : undefined;
    if (!video) return [];
    const mediaType = nonEmptyText(video.encoding) ?? nonEmptyText(video.mimeType);
    if (isHttpUrl(video.uri)) return [{ url: video.uri, ...(mediaType ? { contentType: mediaType } : {}) }];
    const bytes = nonEmptyText(video.encodedVideo) ?? nonEmptyText(video.videoBytes);
    if (bytes)
      return [{ url: inlineOutputUrl(bytes, mediaType ?? "video/mp4"), contentType: mediaType ?? "video/mp4" }];
    return [];
  });
}
