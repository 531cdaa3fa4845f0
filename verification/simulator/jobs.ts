import { randomBytes, randomUUID } from "node:crypto";

export type SimProvider = "replicate" | "fal" | "runway" | "veo" | "luma";
/** `stuck` never leaves the running phase, like a job whose worker hangs at the provider. */
export type SimOutcome = "succeeded" | "failed" | "canceled" | "stuck";

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
};

export const DEFAULT_TIMINGS: JobTimings = {
  queuedMs: 2_000,
  runningMs: 8_000,
  outputBytes: 512 * 1024,
  outputTtlMs: 60 * 60 * 1000,
  resultTtlMs: 60 * 60 * 1000,
};

const DEFAULT_MODEL: Record<SimProvider, string> = {
  replicate: "minimax/video-01",
  fal: "fal-ai/kling-video/v2.5-turbo/pro/text-to-video",
  runway: "gen4_turbo",
  veo: "veo-3.1-generate-preview",
  luma: "ray-2",
};

/**
 * Replicate ids are 26 lowercase base-32 characters; fal request ids, Runway task ids and Luma
 * generation ids are UUIDs; a Veo operation's last name segment is a short lowercase token (the full
 * name adds the model).
 */
export function newJobId(provider: SimProvider): string {
  if (provider === "fal" || provider === "runway" || provider === "luma") return randomUUID();
  const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
  return Array.from(randomBytes(provider === "veo" ? 12 : 26), (b) => alphabet[b % alphabet.length]).join("");
}

export function buildJob(spec: JobSpec, defaults: JobTimings, now: number, createdByApi: boolean): SimJob {
  return {
    queuedMs: spec.queuedMs ?? defaults.queuedMs,
    runningMs: spec.runningMs ?? defaults.runningMs,
    outputBytes: spec.outputBytes ?? defaults.outputBytes,
    outputTtlMs: spec.outputTtlMs ?? defaults.outputTtlMs,
    resultTtlMs: spec.resultTtlMs ?? defaults.resultTtlMs,
    id: spec.id ?? newJobId(spec.provider),
    provider: spec.provider,
    model: spec.model ?? DEFAULT_MODEL[spec.provider],
    input: spec.input ?? { prompt: "a red fox running through snow" },
    outcome: spec.outcome ?? "succeeded",
    notFoundForMs: spec.notFoundForMs ?? 0,
    error: spec.error ?? "Simulated generation failure",
    errorOnStatus: spec.errorOnStatus ?? false,
    createdAt: spec.createdAt ?? now,
    createdByApi,
  };
}

export type Phase = "hidden" | "queued" | "running" | "done";

export function phaseOf(job: SimJob, now: number): Phase {
  if (now < job.createdAt + job.notFoundForMs) return "hidden";
  if (now < startedAt(job)) return "queued";
  if (job.outcome === "stuck" || now < completedAt(job)) return "running";
  return "done";
}

export const startedAt = (job: SimJob) => job.createdAt + job.queuedMs;
export const completedAt = (job: SimJob) => startedAt(job) + job.runningMs;
export const outputAvailable = (job: SimJob, now: number) =>
  phaseOf(job, now) === "done" && job.outcome === "succeeded" && now < completedAt(job) + job.outputTtlMs;
