import { requestFingerprint } from "@/lib/domain/fingerprint";
import { isObject as isRecord, nonEmptyText as text } from "../json";
import { isOutputUrl, stringsWithin, unreadableAnswer } from "../outputs";
import type { JobStatus, ListedJob, OutputRef, WebhookReport } from "../types";

/** Replicate deletes API predictions' outputs after an hour (docs: "Data retention"). */
export const REPLICATE_OUTPUT_RETENTION_SECONDS = 3600;

/** Pure mapping of one `GET /v1/predictions/{id}` answer; transport failures never reach here. */
export function predictionToStatus(httpStatus: number, body: unknown): JobStatus {
  if (httpStatus === 404) return { kind: "not_found", httpStatus };
  if (httpStatus !== 200)
    return unknown(httpStatus === 401 || httpStatus === 403 ? "unauthorised" : `http_${httpStatus}`, httpStatus);
  if (!isRecord(body) || typeof body.status !== "string") return unknown("malformed_response", httpStatus);
  const providerStatus = body.status;
  switch (providerStatus) {
    case "starting":
    case "processing":
      return { kind: "running", providerStatus };
    case "succeeded": {
      // data_removed: the retention period has passed and the output files are gone for good.
      const outputs = extractOutputs(body.output, expiryOf(body.completed_at));
      const outputsRemoved = body.data_removed === true;
      const unreadable = outputs.length === 0 && !outputsRemoved;
      return {
        kind: "completed",
        providerStatus,
        outputs,
        outputsRemoved,
        ...(unreadable ? { evidence: { unreadableAnswer: unreadableAnswer({ output: body.output ?? null }) } } : {}),
      };
    }
    case "failed":
      return { kind: "failed", providerStatus, reason: text(body.error) ?? "failed", canceled: false };
    case "canceled":
      return { kind: "failed", providerStatus, reason: "canceled", canceled: true };
    default:
      // A status this code does not know is reported, not guessed at.
      return unknown(`unrecognised_status:${providerStatus.slice(0, 40)}`, httpStatus);
  }
}

function unknown(reason: string, httpStatus: number): JobStatus {
  return { kind: "unknown", reason, attempts: 1, httpStatus };
}

function expiryOf(completedAt: unknown): string | undefined {
  const ms = typeof completedAt === "string" ? Date.parse(completedAt) : Number.NaN;
  return Number.isNaN(ms) ? undefined : new Date(ms + REPLICATE_OUTPUT_RETENTION_SECONDS * 1000).toISOString();
}

/**
 * Output is model-specific and typed `any` in Replicate's client, which walks it to any depth and
 * treats every string starting `https:` or `data:` as a file: a URL (most video models), a list of
 * URLs, a list of lists, an object of any of these (`{ video: url }`, `{ videos: [{ url }] }`).
 * Every such string is an output, in document order; text and numbers are not files to copy.
 */
export function extractOutputs(output: unknown, expiresAt?: string): OutputRef[] {
  // A data: URI expires too: the prediction holding it loses its output with the rest.
  return stringsWithin(output, isOutputUrl).map((url) => (expiresAt ? { url, expiresAt } : { url }));
}

export type ReplicateListPage = { jobs: ListedJob[]; nextCursor?: string };

/** `GET /v1/predictions`: newest first, `next` is a full URL whose `cursor` parameter we keep. */
export function listPage(body: unknown): ReplicateListPage | undefined {
  if (!isRecord(body) || !Array.isArray(body.results)) return undefined;
  const jobs = body.results.flatMap((item): ListedJob[] => {
    if (!isRecord(item) || !text(item.id) || !text(item.created_at)) return [];
    const status = typeof item.status === "string" ? item.status : "";
    return [
      {
        providerJobId: item.id as string,
        model: text(item.model),
        createdAt: item.created_at as string,
        status: listedStatus(status),
        providerStatus: status,
        input: item.input,
      },
    ];
  });
  return { jobs, nextCursor: cursorOf(body.next) };
}

function listedStatus(status: string): ListedJob["status"] {
  if (status === "starting" || status === "processing") return "running";
  if (status === "succeeded") return "completed";
  if (status === "failed" || status === "canceled") return "failed";
  return "unknown";
}

function cursorOf(next: unknown): string | undefined {
  if (typeof next !== "string") return undefined;
  try {
    return new URL(next).searchParams.get("cursor") ?? undefined;
  } catch {
    return undefined;
  }
}

/** A prediction webhook's body is the prediction itself (docs: "Receive webhooks"). */
export function webhookReport(body: unknown): WebhookReport | null {
  if (!isRecord(body)) return null;
  const providerJobId = text(body.id);
  if (!providerJobId) return null;
  const model = text(body.model) ?? text(body.version);
  // A prediction whose data was removed shows `{}` for its input: that is not the request it ran.
  const fingerprint = body.data_removed === true ? null : fingerprintOf(body.input);
  const createdAt = text(body.created_at);
  const echoed = echoedRef(body.webhook);
  return {
    providerJobId,
    status: predictionToStatus(200, body),
    ...(model ? { model } : {}),
    ...(fingerprint ? { requestFingerprint: fingerprint } : {}),
    ...(createdAt ? { createdAt } : {}),
    ...(echoed !== undefined ? { echoedRef: echoed } : {}),
  };
}

/**
 * The `ref` of a webhook URL the signed body echoes. Replicate's documented prediction object (the
 * webhook body, docs: "Receive webhooks") carries no `webhook` field today; should it ever echo one,
 * the reference inside the signature outranks the one on the URL (rule 17).
 */
function echoedRef(webhook: unknown): string | null | undefined {
  if (typeof webhook !== "string") return undefined;
  try {
    return new URL(webhook).searchParams.get("ref");
  } catch {
    return null;
  }
}

function fingerprintOf(input: unknown): string | null {
  if (!isRecord(input)) return null;
  try {
    return requestFingerprint(input);
  } catch {
    return null;
  }
}
