import { isHttpUrl, isObject, type JsonObject, nonEmptyText } from "../json";
import { unreadableAnswer } from "../outputs";
import type { AnswerEvidence, JobStatus, OutputRef } from "../types";

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
    case "SUCCEEDED": {
      // No URL at all on a success is not something the reference describes: not asserted either way.
      if (!Array.isArray(body.output)) return unknown("malformed_response", httpStatus);
      const outputs = outputsOf(body.output);
      const evidence = {
        ...costEvidence(body),
        ...(outputs.length === 0 ? { unreadableAnswer: unreadableAnswer({ output: body.output }) } : {}),
      };
      return { kind: "completed", providerStatus, outputs, outputsRemoved: false, ...withEvidence(evidence) };
    }
    case "FAILED": {
      const reason = [nonEmptyText(body.failureCode), nonEmptyText(body.failure)].filter(Boolean).join(": ");
      const evidence = withEvidence(costEvidence(body));
      return { kind: "failed", providerStatus, reason: reason.slice(0, 500) || "failed", canceled: false, ...evidence };
    }
    case "CANCELLED":
      return {
        kind: "failed",
        providerStatus,
        reason: "cancelled",
        canceled: true,
        ...withEvidence(costEvidence(body)),
      };
    default:
      return unknown(`unrecognised_status:${providerStatus.slice(0, 40)}`, httpStatus);
  }
}

/** `output` is a list of URLs (`TaskRetrieveResponse.Succeeded`); anything else in it is not a file to copy. */
export function outputsOf(output: unknown[]): OutputRef[] {
  return output.filter(isHttpUrl).map((url) => ({ url }));
}

/**
 * What the task says it cost, kept as billing evidence on every ending (`cost.credits` on
 * SUCCEEDED, FAILED and CANCELLED in `@runwayml/sdk`'s `TaskRetrieveResponse`), or the
 * `estimatedCost.credits` a task carried when no final cost is given.
 */
export function costEvidence(body: JsonObject): AnswerEvidence {
  const credits = creditsOf(body.cost);
  const estimated = creditsOf(body.estimatedCost);
  return {
    ...(credits !== undefined ? { credits } : {}),
    ...(estimated !== undefined ? { estimatedCredits: estimated } : {}),
  };
}

function creditsOf(cost: unknown): number | undefined {
  if (!isObject(cost)) return undefined;
  const credits = cost.credits;
  return typeof credits === "number" && Number.isFinite(credits) && credits >= 0 ? credits : undefined;
}

const withEvidence = (evidence: AnswerEvidence) => (Object.keys(evidence).length > 0 ? { evidence } : {});
