import type { Writable } from "node:stream";
import { downloadToSink } from "./download/download";
import { hostPolicy } from "./download/hosts";
import { retryPolicy } from "./http/backoff";
import { type GetRequest, getWithRetry, type HttpAnswer } from "./http/get-with-retry";
import {
  type AdapterConfig,
  type CallOptions,
  type DownloadOptions,
  type DownloadResult,
  type JobStatus,
  type ListedJob,
  type ListWindow,
  type OutputRef,
  ProviderConfigError,
  type RetryPolicy,
} from "./types";

export const DEFAULT_MAX_DOWNLOAD_BYTES = 1024 * 1024 * 1024;
export const DEFAULT_DOWNLOAD_TIMEOUT_MS = 10 * 60 * 1000;
/**
 * The largest status answer read where a provider may put the video itself in it (Veo's
 * `encodedVideo`, a Replicate or fal `data:` URI): base64 of a clip of about 48 MB. A larger answer
 * is `response_too_large`, unknown, and parks with that evidence rather than being held in memory.
 */
export const INLINE_ANSWER_MAX_BYTES = 64 * 1024 * 1024;

export type AdapterKit = {
  baseUrl: string;
  policy: RetryPolicy;
  random: () => number;
  /** A read from the provider's API with the adapter's retry policy, the call's pace and its signal. */
  get(
    request: Pick<GetRequest, "url" | "headers" | "isFinal" | "maxBodyBytes">,
    options: CallOptions,
  ): Promise<HttpAnswer>;
  downloadOutput(output: OutputRef | string, sink: Writable, options?: DownloadOptions): Promise<DownloadResult>;
};

/**
 * What every adapter shares: validated base URL, retry policy, and the download allow-list. A
 * download credential (headers) is sent to the base URL's own host only, whatever the allow-list says.
 */
export function adapterKit(
  config: AdapterConfig,
  deliveryHosts: string[],
  downloadCredential?: Record<string, string>,
): AdapterKit {
  const baseUrl = normaliseBaseUrl(config.baseUrl);
  const hosts = hostPolicy(baseUrl, deliveryHosts, config.allowedDownloadHosts);
  const credential =
    downloadCredential && Object.keys(downloadCredential).length > 0
      ? { headers: downloadCredential, hosts: [new URL(baseUrl).host] }
      : undefined;
  const policy = retryPolicy(config.retry);
  const random = config.random ?? Math.random;
  return {
    baseUrl,
    policy,
    random,
    get: (request, options) => getWithRetry({ ...request, policy, random, signal: options.signal, pace: options.pace }),
    downloadOutput(output, sink, options = {}) {
      const ref = typeof output === "string" ? { url: output } : output;
      return downloadToSink({
        url: ref.url,
        hosts,
        sink,
        maxBytes: options.maxBytes ?? config.maxDownloadBytes ?? DEFAULT_MAX_DOWNLOAD_BYTES,
        timeoutMs: options.timeoutMs ?? config.downloadTimeoutMs ?? DEFAULT_DOWNLOAD_TIMEOUT_MS,
        expectedSize: options.expectedSize ?? ref.size,
        expectedSha256: options.expectedSha256,
        signal: options.signal,
        credential,
      });
    },
  };
}

export function normaliseBaseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ProviderConfigError(`provider base URL is not a URL: ${raw}`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new ProviderConfigError("base URL must be http(s)");
  if (url.search || url.hash || url.username)
    throw new ProviderConfigError("base URL must not carry query, hash or credentials");
  return url.toString().replace(/\/+$/, "");
}

/** An HTTP-level `unknown`, with absent fields left out so evidence stays tidy. */
export function unknownFrom(answer: Extract<HttpAnswer, { kind: "unknown" }>): JobStatus {
  const status: JobStatus = { kind: "unknown", reason: answer.reason, attempts: answer.attempts };
  if (answer.httpStatus !== undefined) status.httpStatus = answer.httpStatus;
  if (answer.retryAfterMs !== undefined) status.retryAfterMs = answer.retryAfterMs;
  return status;
}

export function withAttempts(status: JobStatus, attempts: number): JobStatus {
  return status.kind === "unknown" ? { ...status, attempts } : status;
}

export function authHeaders(scheme: "Bearer" | "Key", apiKey: string | undefined): Record<string, string> {
  return apiKey ? { authorization: `${scheme} ${apiKey}` } : {};
}

/** A listed job created inside the window (and of its model, when the window names one). */
export function createdWithin(job: ListedJob, window: ListWindow): boolean {
  const created = Date.parse(job.createdAt);
  if (Number.isNaN(created) || created < window.from.getTime() || created >= window.to.getTime()) return false;
  return window.model === undefined || job.model === window.model;
}
