/**
 * What a provider answers, normalised. These types live in the domain because the worker's policy
 * (provider-answer.ts) decides on them; the adapters in lib/providers produce them.
 */
export type OutputRef = {
  /**
   * Where the file is: an http(s) URL fetched under the host allow-list, or a `data:` URI when the
   * provider answered with the bytes themselves (Veo's `encodedVideo`, a Replicate or fal data URI),
   * which the download decodes without any fetch.
   */
  url: string;
  /** When the provider documents a retention period, the moment the URL is expected to stop working. */
  expiresAt?: string;
  contentType?: string;
  /** Size announced by the provider's own result payload, when it gives one. */
  size?: number;
};

/**
 * What a provider's answer says besides its outcome that a person may need later: the billing it
 * reports and why it withheld a video. Kept on the observation (sanitised there), never decided on.
 */
export type AnswerEvidence = {
  /** Runway: credits the task cost, reported on failed and cancelled tasks too (billing evidence). */
  credits?: number;
  /** Runway: the estimate a task carried before it ended, when that is all the answer gives. */
  estimatedCredits?: number;
  /** Veo: how many videos the content filter withheld, and Google's words for why. */
  filteredCount?: number;
  filteredReasons?: string[];
  /**
   * The part of a completed answer that should have named the outputs, when nothing in it could be
   * read as one: bounded and without prompts here, sanitised again where it is stored.
   */
  unreadableAnswer?: unknown;
};

/**
 * Normalised status. `unknown` means "we could not find out" (transport error, throttling, a
 * malformed or unauthorised answer): it never says anything about the job itself, so callers must
 * not treat it as `failed`. `providerStatus` keeps the raw value as evidence.
 */
export type JobStatus =
  | { kind: "running"; providerStatus: string }
  | {
      kind: "completed";
      providerStatus: string;
      outputs: OutputRef[];
      outputsRemoved: boolean;
      evidence?: AnswerEvidence;
    }
  | { kind: "failed"; providerStatus: string; reason: string; canceled: boolean; evidence?: AnswerEvidence }
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
  | "sink_error"
  /** A `data:` URI the provider answered with that is not one (bad base64, no comma). */
  | "malformed_inline";
