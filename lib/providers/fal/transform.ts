import { isObject, type JsonObject, nonEmptyText } from "../json";
import { inlineOutputUrl, isOutputUrl, MAX_OUTPUT_DEPTH, unreadableAnswer } from "../outputs";
import type { JobStatus, ListedJob, OutputRef, WebhookReport } from "../types";

/**
 * The queue keeps a request's result (the only answer naming its output files) for an hour after
 * completion (docs: "Get request result"; 6 minutes for results of 10 KB or more). CDN files follow
 * the account's own lifecycle setting, which the API does not report, so the result is the bound.
 */
export const FAL_RESULT_RETENTION_SECONDS = 3600;

/** After COMPLETED, only the result endpoint says whether the model produced output or an error. */
export type FalStatusStep = JobStatus | { kind: "fetch_result" };

const unknown = (reason: string, httpStatus: number): JobStatus => ({
  kind: "unknown",
  reason,
  attempts: 1,
  httpStatus,
});

/** Pure mapping of `GET {app}/requests/{id}/status` (202 while queued/running, 200 when done). */
export function statusToStep(httpStatus: number, body: unknown): FalStatusStep {
  if (httpStatus === 404) return { kind: "not_found", httpStatus };
  if (httpStatus < 200 || httpStatus > 299) {
    return unknown(httpStatus === 401 || httpStatus === 403 ? "unauthorised" : `http_${httpStatus}`, httpStatus);
  }
  if (!isObject(body) || typeof body.status !== "string") return unknown("malformed_response", httpStatus);
  const providerStatus = body.status;
  if (providerStatus === "IN_QUEUE" || providerStatus === "IN_PROGRESS") return { kind: "running", providerStatus };
  if (providerStatus !== "COMPLETED") return unknown(`unrecognised_status:${providerStatus.slice(0, 40)}`, httpStatus);
  const error = nonEmptyText(body.error);
  if (error)
    return { kind: "failed", providerStatus, reason: reasonOf(nonEmptyText(body.error_type), error), canceled: false };
  return { kind: "fetch_result" };
}

/**
 * Pure mapping of `GET {app}/requests/{id}`, asked only after the status said COMPLETED. fal replays
 * the model's answer here, so an error carrying fal's `error_type` (header or body) or a 422 from the
 * model is the job's recorded outcome. Any other error is about this call, not the job: `unknown`.
 */
export function resultToStatus(httpStatus: number, body: unknown, errorTypeHeader?: string | null): JobStatus {
  const providerStatus = "COMPLETED";
  if (httpStatus >= 200 && httpStatus <= 299) {
    if (!isObject(body)) return unknown("malformed_response", httpStatus);
    return completedWith(providerStatus, body);
  }
  const errorType = nonEmptyText(errorTypeHeader) ?? (isObject(body) ? nonEmptyText(body.error_type) : undefined);
  if (errorType)
    return { kind: "failed", providerStatus, reason: reasonOf(errorType, detailOf(body)), canceled: false };
  if (httpStatus === 422)
    return { kind: "failed", providerStatus, reason: detailOf(body) ?? "http_422", canceled: false };
  // The request exists (status said COMPLETED) but its stored result is gone: no outcome can be asserted.
  if (httpStatus === 404) return unknown("result_unavailable", httpStatus);
  return unknown(`http_${httpStatus}`, httpStatus);
}

function reasonOf(errorType: string | undefined, detail: string | undefined): string {
  return [errorType, detail].filter(Boolean).join(": ") || "error";
}

/** `detail` is a string for request errors and a list of `{ msg, type }` for model validation errors. */
function detailOf(body: unknown): string | undefined {
  if (!isObject(body)) return undefined;
  if (typeof body.detail === "string") return body.detail.slice(0, 500);
  if (!Array.isArray(body.detail)) return undefined;
  const first = body.detail[0];
  if (!isObject(first)) return undefined;
  return [nonEmptyText(first.type), nonEmptyText(first.msg)].filter(Boolean).join(": ").slice(0, 500) || undefined;
}

/** A completion naming the payload's files; a payload with none keeps itself as evidence. */
function completedWith(providerStatus: string, payload: JsonObject): JobStatus {
  const outputs = extractFiles(payload);
  if (outputs.length > 0) return { kind: "completed", providerStatus, outputs, outputsRemoved: false };
  const evidence = { unreadableAnswer: unreadableAnswer(payload) };
  return { kind: "completed", providerStatus, outputs, outputsRemoved: false, evidence };
}

/**
 * fal outputs are `File` objects (`{ url, content_type?, file_name?, file_size?, file_data? }` in
 * `@fal-ai/client`; `VideoFile` and `Image` add dimensions) anywhere in the model's payload, under
 * any key (`video`, `videos`, `images`, `audio`, `output`...) and at any depth up to the bound. The
 * `url` may be a `data:` URI (sync mode); a File with no readable `url` but `file_data` (base64)
 * carries its bytes. A File's `content_type` and `file_size` are kept, to check the copy against.
 */
export function extractFiles(payload: JsonObject, depth = 0, budget = { values: 5000 }): OutputRef[] {
  budget.values -= 1;
  if (depth > MAX_OUTPUT_DEPTH || budget.values < 0) return [];
  const file = fileOf(payload);
  if (file) return [file];
  return Object.values(payload)
    .flatMap((value) => (Array.isArray(value) ? value : [value]))
    .flatMap((child) => (Array.isArray(child) ? child : [child]))
    .filter(isObject)
    .flatMap((child) => extractFiles(child, depth + 1, budget));
}

function fileOf(payload: JsonObject): OutputRef | undefined {
  const contentType = nonEmptyText(payload.content_type);
  const inline = nonEmptyText(payload.file_data);
  const url = isOutputUrl(payload.url) ? payload.url : inline ? inlineOutputUrl(inline, contentType) : undefined;
  if (!url) return undefined;
  const file: OutputRef = { url };
  if (contentType) file.contentType = contentType;
  if (typeof payload.file_size === "number" && Number.isInteger(payload.file_size)) file.size = payload.file_size;
  return file;
}

export type FalListPage = { jobs: ListedJob[]; nextCursor?: string };

/** Platform API `GET /models/requests/by-endpoint`: the request log, one endpoint at a time. */
export function requestsPage(body: unknown): FalListPage | undefined {
  if (!isObject(body) || !Array.isArray(body.items)) return undefined;
  const jobs = body.items.flatMap((item): ListedJob[] => {
    const id = isObject(item) ? nonEmptyText(item.request_id) : undefined;
    const sentAt = isObject(item) ? nonEmptyText(item.sent_at) : undefined;
    if (!isObject(item) || !id || !sentAt) return [];
    const code = typeof item.status_code === "number" ? item.status_code : undefined;
    const ended = nonEmptyText(item.ended_at) !== undefined;
    const status: ListedJob["status"] = !ended
      ? "running"
      : code === undefined
        ? "unknown"
        : code < 300
          ? "completed"
          : "failed";
    return [
      {
        providerJobId: id,
        model: nonEmptyText(item.endpoint_id),
        createdAt: sentAt,
        status,
        providerStatus: code === undefined ? "pending" : String(code),
        input: item.json_input,
      },
    ];
  });
  const nextCursor = body.has_more === true ? nonEmptyText(body.next_cursor) : undefined;
  return { jobs, nextCursor };
}

/**
 * A queue webhook (docs: "Webhooks"): `status` "OK" with the model's output in `payload`, or
 * "ERROR" with a message in `error`. An output that could not be serialised (`payload_error`)
 * says the job ran but its files cannot be named from here: unknown, never a failure.
 */
export function webhookReport(body: unknown): WebhookReport | null {
  if (!isObject(body)) return null;
  const providerJobId = nonEmptyText(body.request_id);
  if (!providerJobId) return null;
  const providerStatus = typeof body.status === "string" ? body.status : "";
  if (providerStatus === "OK" && isObject(body.payload)) {
    return { providerJobId, status: completedWith(providerStatus, body.payload) };
  }
  if (providerStatus === "ERROR") {
    const reason = reasonOf(undefined, nonEmptyText(body.error) ?? "error");
    return { providerJobId, status: { kind: "failed", providerStatus, reason, canceled: false } };
  }
  const reason = nonEmptyText(body.payload_error)
    ? "payload_error"
    : `unrecognised_status:${providerStatus.slice(0, 40)}`;
  return { providerJobId, status: { kind: "unknown", reason, attempts: 1 } };
}
