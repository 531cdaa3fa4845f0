import { isHttpUrl, isObject, nonEmptyText } from "../json";
import type { JobStatus, OutputRef } from "../types";

/**
 * Output URLs "expire within 24-48 hours" of reading the task, and reading it again gives fresh ones
 * (API reference, task object; "Output formats"). The lower bound is the one to plan by.
 */
export const RUNWAY_OUTPUT_RETENTION_SECONDS = 24 * 60 * 60;

const unknown = (reason: string, httpStatus: number): JobStatus => ({
  kind: "unknown",
  reason,
  attempts: 1,
  httpStatus,
});

/**
 * Pure mapping of one `GET /v1/tasks/{id}` answer; transport failures never reach here. A 404 is
 * documented as "the referenced resource is not available", which covers a task that was never
 * created and one that was cancelled or deleted (neither "can be fetched again").
 */
export function taskToStatus(httpStatus: number, body: unknown): JobStatus {
  if (httpStatus === 404) return { kind: "not_found", httpStatus };
  if (httpStatus !== 200)
    return unknown(httpStatus === 401 || httpStatus === 403 ? "unauthorised" : `http_${httpStatus}`, httpStatus);
  if (!isObject(body) || typeof body.status !== "string") return unknown("malformed_response", httpStatus);
  const providerStatus = body.status;
  switch (providerStatus) {
    case "PENDING":
    case "THROTTLED":
    case "RUNNING":
      return { kind: "running", providerStatus };
    case "SUCCEEDED":
      // No URL at all on a success is not something the reference describes: not asserted either way.
      if (!Array.isArray(body.output)) return unknown("malformed_response", httpStatus);
      return { kind: "completed", providerStatus, outputs: outputsOf(body.output), outputsRemoved: false };
    case "FAILED": {
      const reason = [nonEmptyText(body.failureCode), nonEmptyText(body.failure)].filter(Boolean).join(": ");
      return { kind: "failed", providerStatus, reason: reason.slice(0, 500) || "failed", canceled: false };
    }
    case "CANCELLED":
      return { kind: "failed", providerStatus, reason: "cancelled", canceled: true };
    default:
      return unknown(`unrecognised_status:${providerStatus.slice(0, 40)}`, httpStatus);
  }
}

/** `output` is a list of URLs; anything else in it is not a file to copy. */
export function outputsOf(output: unknown[]): OutputRef[] {
  return output.filter(isHttpUrl).map((url) => ({ url }));
}
