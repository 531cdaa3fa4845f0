import type { Writable } from "node:stream";

/**
 * The provider layer's contract. There is deliberately no `create` here: the recovery path must not
 * be able to start a paid generation, so the type that the worker receives cannot express one.
 */
export type ProviderName = "replicate" | "fal";

/**
 * Neither provider documents how late a job can appear in its list; 15 minutes is what the
 * reconciliation rule used before it became per provider, so it stays the starting point.
 */
export const DEFAULT_NO_JOB_SETTLING_SECONDS: Readonly<Record<ProviderName, number>> = {
  replicate: 15 * 60,
  fal: 15 * 60,
};

export type OutputRef = {
  url: string;
  /** When the provider documents a retention period, the moment the URL is expected to stop working. */
  expiresAt?: string;
  contentType?: string;
  /** Size announced by the provider's own result payload, when it gives one. */
  size?: number;
};

/**
 * Normalised status. `unknown` means "we could not find out" (transport error, throttling, a
 * malformed or unauthorised answer): it never says anything about the job itself, so callers must
 * not treat it as `failed`. `providerStatus` keeps the raw value as evidence.
 */
export type JobStatus =
  | { kind: "running"; providerStatus: string }
  | { kind: "completed"; providerStatus: string; outputs: OutputRef[]; outputsRemoved: boolean }
  | { kind: "failed"; providerStatus: string; reason: string; canceled: boolean }
  | { kind: "not_found"; httpStatus: number }
  | { kind: "unknown"; reason: string; attempts: number; httpStatus?: number; retryAfterMs?: number };

export type JobKind = JobStatus["kind"];

/** fal needs the model (endpoint id) to address a request; Replicate ignores it. */
export type JobRef = { providerJobId: string; model?: string };

export type CallOptions = { signal?: AbortSignal };

export type ListWindow = { from: Date; to: Date; model?: string; maxPages?: number };

/**
 * A candidate for reconciliation. `input` is the provider's copy of the request so the caller can
 * fingerprint it; it may contain full prompts and must never be stored as evidence.
 */
export type ListedJob = {
  providerJobId: string;
  model?: string;
  createdAt: string;
  status: "running" | "completed" | "failed" | "unknown";
  providerStatus: string;
  input?: unknown;
};

/** `complete: false` means the page bound stopped the scan: absence from `jobs` proves nothing. */
export type ListJobsResult =
  | { kind: "ok"; jobs: ListedJob[]; complete: boolean; pages: number }
  | { kind: "unknown"; reason: string; jobs: ListedJob[]; pages: number };

export type DownloadOptions = CallOptions & {
  maxBytes?: number;
  timeoutMs?: number;
  /** Known from an earlier copy or from the producer; lets a corrupted body be caught. */
  expectedSha256?: string;
  expectedSize?: number;
};

export type DownloadFailure =
  | "host_not_allowed"
  | "not_available"
  | "http_error"
  | "too_large"
  | "truncated"
  | "size_mismatch"
  | "checksum_mismatch"
  | "timeout"
  | "transport_error"
  | "sink_error";

/**
 * On success the sink has been ended after every check passed; on failure it has been destroyed
 * (without an error event) and whatever it received must be discarded.
 */
export type DownloadResult =
  | { ok: true; size: number; sha256: string; contentType?: string; verifiedBy: string[] }
  | { ok: false; reason: DownloadFailure; detail: string; httpStatus?: number; bytesReceived: number };

export type ProviderCapabilities = {
  findByClientReference: boolean;
  listJobs: boolean;
  /** listJobs can only search one model at a time (fal's request log is per endpoint). */
  listJobsRequiresModel: boolean;
  /** Documented lifetime of output URLs, in seconds, when the provider states one. */
  outputRetentionSeconds?: number;
  /**
   * How long after a submission a job may still be missing from the list before "no job exists"
   * can be recorded: the default until an admin stores the provider's own value.
   */
  noJobSettlingSeconds: number;
};

export interface ProviderAdapter {
  readonly provider: ProviderName;
  readonly capabilities: ProviderCapabilities;
  getJob(ref: JobRef, options?: CallOptions): Promise<JobStatus>;
  downloadOutput(output: OutputRef | string, sink: Writable, options?: DownloadOptions): Promise<DownloadResult>;
  findByClientReference?(reference: string, options?: CallOptions): Promise<ListJobsResult>;
  listJobs?(window: ListWindow, options?: CallOptions): Promise<ListJobsResult>;
}

export type RetryPolicy = {
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  perAttemptTimeoutMs: number;
  /** A Retry-After longer than this ends the call as `unknown` so the caller can reschedule. */
  maxRetryAfterMs: number;
};

export type AdapterConfig = {
  baseUrl: string;
  apiKey?: string;
  retry?: Partial<RetryPolicy>;
  /** Replaces the default download allow-list (base-URL host plus documented delivery hosts). */
  allowedDownloadHosts?: string[];
  maxDownloadBytes?: number;
  downloadTimeoutMs?: number;
  /** Source of jitter; injectable so tests can pin it. */
  random?: () => number;
};

export class ProviderConfigError extends Error {
  override name = "ProviderConfigError";
}
