import { randomBytes } from "node:crypto";
import type { ProviderName } from "../../lib/providers/types";

export type SimProvider = ProviderName;
/** `stuck` never leaves the running phase, like a job whose worker hangs at the provider. */
export type SimOutcome = "succeeded" | "failed" | "canceled" | "stuck";
/**
 * How a succeeded job's answer names its output (Replicate and Veo only): `url` as usual; `nested`
 * deep inside lists and objects (Replicate `[[url]]`); `inline` as the bytes themselves (Replicate a
 * data: URI, Veo `encodedVideo`); `unreadable` naming nothing a client would take as a file.
 */
export type SimOutputShape = "url" | "nested" | "inline" | "unreadable";

export type JobTimings = {
  queuedMs: number;
  runningMs: number;
  outputBytes: number;
  /** How long output URLs keep answering after completion (Replicate documents one hour). */
  outputTtlMs: number;
  /** How long fal keeps a request's result payload after completion (documented as one hour). */
  resultTtlMs: number;
};

export type JobSpec = Partial<JobTimings> & {
  provider: SimProvider;
  id?: string;
  model?: string;
  input?: unknown;
  outcome?: SimOutcome;
  /** The job answers 404 for this long after creation, as a freshly accepted job sometimes does. */
  notFoundForMs?: number;
  error?: string;
  /** fal only: report the failure on the status answer too, not only on the result. */
  errorOnStatus?: boolean;
  createdAt?: number;
  outputShape?: SimOutputShape;
  /** Runway only: the queued phase reads THROTTLED (over the account's concurrency) instead of PENDING. */
  throttled?: boolean;
  /**
   * Output URLs carry a signed query (expiry and signature), as CDNs' presigned URLs do, and the
   * file is served only to a request that presents it: the URL without its query answers 403.
   */
  signedOutputs?: boolean;
  /**
   * The bytes' seed in place of the job ID: jobs seeded alike deliver identical bytes, as a provider
   * handing two paid jobs the same video would (decision 072).
   */
  outputSeed?: string;
  /**
   * What the provider charges for the job, in micro-units of its price's currency, in place of the
   * price table's figure (./costs.ts): a charge that differs from what the shop reserved.
   */
  costMicros?: number;
};

export type SimJob = JobTimings & {
  id: string;
  provider: SimProvider;
  model: string;
  input: unknown;
  outcome: SimOutcome;
  notFoundForMs: number;
  error: string;
  errorOnStatus: boolean;
  createdAt: number;
  createdByApi: boolean;
  outputShape: SimOutputShape;
  throttled: boolean;
  signedOutputs: boolean;
  /** What the output bytes are derived from: the job ID unless the seed said otherwise. */
  outputSeed: string;
  /** Deleted through the provider's delete route (Runway, Luma): it answers 404 from then on. */
  deleted: boolean;
  /** The charge when it is not the price table's (./costs.ts); undefined: the table's. */
  costMicros: number | undefined;
};

export const DEFAULT_TIMINGS: JobTimings = {
  queuedMs: 2_000,
  runningMs: 8_000,
  outputBytes: 512 * 1024,
  outputTtlMs: 60 * 60 * 1000,
  resultTtlMs: 60 * 60 * 1000,
};

/** `length` lowercase letters and digits, as Replicate's prediction IDs and Veo's operation names are. */
export function lowercaseId(length: number): string {
  const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
  return Array.from(randomBytes(length), (b) => alphabet[b % alphabet.length]).join("");
}

/** What a seeded job takes from its provider when the seed does not say. */
export type ProviderDefaults = { defaultModel: string; newJobId(): string };

export function buildJob(
  spec: JobSpec,
  provider: ProviderDefaults,
  defaults: JobTimings,
  now: number,
  createdByApi: boolean,
): SimJob {
  const id = spec.id ?? provider.newJobId();
  return {
    queuedMs: spec.queuedMs ?? defaults.queuedMs,
    runningMs: spec.runningMs ?? defaults.runningMs,
    outputBytes: spec.outputBytes ?? defaults.outputBytes,
    outputTtlMs: spec.outputTtlMs ?? defaults.outputTtlMs,
    resultTtlMs: spec.resultTtlMs ?? defaults.resultTtlMs,
    id,
    provider: spec.provider,
    model: spec.model ?? provider.defaultModel,
    input: spec.input ?? { prompt: "a red fox running through snow" },
    outcome: spec.outcome ?? "succeeded",
    notFoundForMs: spec.notFoundForMs ?? 0,
    error: spec.error ?? "Simulated generation failure",
    errorOnStatus: spec.errorOnStatus ?? false,
    createdAt: spec.createdAt ?? now,
    createdByApi,
    outputShape: spec.outputShape ?? "url",
    throttled: spec.throttled ?? false,
    signedOutputs: spec.signedOutputs ?? false,
    outputSeed: spec.outputSeed ?? id,
    deleted: false,
    costMicros: spec.costMicros,
  };
}

export type Phase = "hidden" | "queued" | "running" | "done";

export function phaseOf(job: SimJob, now: number): Phase {
  if (job.deleted) return "hidden";
  if (now < job.createdAt + job.notFoundForMs) return "hidden";
  if (now < startedAt(job)) return "queued";
  if (job.outcome === "stuck" || now < completedAt(job)) return "running";
  return "done";
}

export const startedAt = (job: SimJob) => job.createdAt + job.queuedMs;
export const completedAt = (job: SimJob) => startedAt(job) + job.runningMs;
export const outputAvailable = (job: SimJob, now: number) =>
  phaseOf(job, now) === "done" && job.outcome === "succeeded" && now < completedAt(job) + job.outputTtlMs;

/**
 * Cancels a job that has not finished: it ends now, as `canceled`. A finished job is left as it is,
 * as the providers leave it; the answer says which happened.
 */
export function cancelJob(job: SimJob, now: number): "canceled" | "already_done" {
  const phase = phaseOf(job, now);
  if (phase === "done") return "already_done";
  if (phase === "queued" || phase === "hidden") {
    job.queuedMs = Math.max(0, now - job.createdAt);
    job.runningMs = 0;
  } else {
    job.runningMs = Math.max(0, now - startedAt(job));
  }
  job.outcome = "canceled";
  return "canceled";
}
