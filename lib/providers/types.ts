import type { Writable } from "node:stream";
import type { DownloadFailure, JobStatus, OutputRef } from "@/lib/domain/job-status";
import type { UsageLineFacts } from "@/lib/domain/usage";
import type { PROVIDERS } from "./registry";

// The provider layer's contract. There is deliberately no `create` here: the recovery path must not
// be able to start a paid generation, so the type that the worker receives cannot express one.

/** The providers listed in lib/providers/registry.ts, by name. */
export type ProviderName = (typeof PROVIDERS)[number]["name"];

/**
 * No provider documents how late a job can appear in its list; 15 minutes is what the
 * reconciliation rule used before it became per provider, so it stays every provider's starting
 * point. Runway and Veo have no list at all, so their period only bounds how early a reviewer may
 * record the verdict, which rests on the provider's billing (docs/providers.md).
 */
export const UNLISTED_JOB_SETTLING_SECONDS = 15 * 60;

export type { AnswerEvidence, JobKind, JobStatus, OutputRef } from "@/lib/domain/job-status";

/** fal needs the model (endpoint id) to address a request; the others ignore it (Veo's operation name holds it). */
export type JobRef = { providerJobId: string; model?: string };

/**
 * The pace of a provider's API that every request keeps to (lib/worker/provider-pace.ts): each HTTP
 * attempt waits for its slot, and a 429's Retry-After is passed on at once, so every process waits
 * it out, not only the request that was refused.
 */
export type RequestPace = {
  /** Resolves when this request may go (early, unpaced, if the caller gives up meanwhile). */
  take(signal?: AbortSignal): Promise<void>;
  /** The provider asked to wait `ms`: nothing leaves before then. */
  holdOff(ms: number): Promise<void>;
};

export type CallOptions = { signal?: AbortSignal; pace?: RequestPace };

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

export type { DownloadFailure } from "@/lib/domain/job-status";

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
  /**
   * The provider's copy of a listed job's request may carry what the producer did not send (its own
   * defaults, a callback URL), so a copy that fingerprints differently does not show the job is
   * someone else's: before paying again such a job, of the model and the minute, still counts.
   */
  requestCopyMayDiffer?: true;
};

export interface ProviderAdapter {
  readonly provider: ProviderName;
  readonly capabilities: ProviderCapabilities;
  getJob(ref: JobRef, options?: CallOptions): Promise<JobStatus>;
  downloadOutput(output: OutputRef | string, sink: Writable, options?: DownloadOptions): Promise<DownloadResult>;
  findByClientReference?(reference: string, options?: CallOptions): Promise<ListJobsResult>;
  listJobs?(window: ListWindow, options?: CallOptions): Promise<ListJobsResult>;
  /** What the provider billed each named job, where its API says per job apart from the job's answer (fal's billing events). */
  jobCosts?(providerJobIds: readonly string[], options?: CallOptions): Promise<JobCostsResult>;
  /** What a finished job measured, for a provider that states no charge (Replicate's `metrics`). */
  jobMetrics?(ref: JobRef, options?: CallOptions): Promise<JobMetrics>;
}

/** Seconds the job ran, and the seconds of video it made where the provider says. */
export type JobMetrics =
  | { kind: "ok"; succeeded: boolean; runSeconds: number; outputSeconds?: number }
  | { kind: "unknown"; reason: string };

/** A read of billed jobs: what was billed for the jobs the provider lists (an unlisted job is not billed yet). */
export type JobCostsResult = { kind: "ok"; costs: UsageLineFacts[] } | { kind: "unknown"; reason: string };

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

/** A provider webhook whose signature checked out: the provider's own event ID and signing time. */
/** `accountId`: the provider account the signature vouches for, where the provider says (fal's user ID). */
export type VerifiedWebhook = { webhookId: string; signedAt: Date; accountId?: string };

/** What a verified webhook says about one job, in the same terms as a status check. */
export type WebhookReport = {
  providerJobId: string;
  status: JobStatus;
  model?: string;
  /** The provider's copy of the request, fingerprinted (never kept itself), when the webhook carries it. */
  requestFingerprint?: string;
  createdAt?: string;
  /**
   * The `ref` of the webhook URL the provider echoes inside its signed body (null: the echoed URL has
   * none); absent when the body echoes no URL, as Replicate's documented prediction object does not.
   */
  echoedRef?: string | null;
};
