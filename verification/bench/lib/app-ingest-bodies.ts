import { createHash } from "node:crypto";
import type { ParkCaseInput } from "../../../lib/validation/park-case";

export type ParkBody = ParkCaseInput;

const STAGES = ["submission_uncertain", "polling", "delivery", "generation_failed"] as const;
const PROVIDERS = [
  ["replicate", "omni-flash-720p"],
  ["replicate", "omni-pro-1080p"],
  ["fal", "kling-2.1"],
  ["fal", "luma-ray-2"],
  ["runway", "gen-4-turbo"],
] as const;

/** Registration number `i` of a run: every stage, several providers, amounts from $0.05 to $5. */
export function parkBody(run: string, i: number): ParkBody {
  const operationId = `${run}-order-${i}`;
  const stage = STAGES[i % STAGES.length] ?? "polling";
  const [provider, model] = PROVIDERS[i % PROVIDERS.length] ?? PROVIDERS[0];
  const knownJob = stage === "polling" || stage === "delivery";
  return {
    operationId,
    attemptId: `${operationId}-a1`,
    stage,
    provider,
    model,
    ...(knownJob ? { providerJobId: `job-${operationId}` } : {}),
    requestFingerprint: `sha256:${createHash("sha256").update(operationId).digest("hex")}`,
    request: { prompt_chars: 412, duration_seconds: 5 + (i % 6), resolution: "720p" },
    evidence: {
      summary: "create call timed out after 30 s",
      observedAt: "2026-11-29T10:00:00Z",
      source: "bench-shop",
      details: { http: "timeout", attempt: 1 },
    },
    submittedAt: "2026-11-29T09:59:30Z",
    hold: {
      holdId: `hold-${operationId}`,
      amountMicros: 50_000 + ((i * 7919) % 100) * 50_000,
      currency: i % 5 === 0 ? "EUR" : "USD",
    },
  };
}
