/**
 * What a provider answers, normalised. These types live in the domain because the worker's policy
 * (provider-answer.ts) decides on them; the adapters in lib/providers produce them.
 */
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

/** Why copying an output failed; `not_available` is the file host saying the file is gone (403/404/410). */
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
