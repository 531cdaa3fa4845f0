import type { JobStatus, ProviderCapabilities } from "./types";

/**
 * Gives every output of a completion the moment it is expected to stop being served: the provider's
 * own (Replicate: completion plus its retention), else now plus the documented retention (fal does
 * not say when a request completed, so this bound is late by however long the job waited for us).
 */
export function withOutputExpiry(status: JobStatus, capabilities: ProviderCapabilities, now: Date): JobStatus {
  if (status.kind !== "completed" || capabilities.outputRetentionSeconds === undefined) return status;
  const fallback = new Date(now.getTime() + capabilities.outputRetentionSeconds * 1000).toISOString();
  return {
    ...status,
    outputs: status.outputs.map((output) => ({ ...output, expiresAt: output.expiresAt ?? fallback })),
  };
}

/** The earliest expiry among the outputs: delivering before it saves all of them. */
export function earliestExpiry(status: JobStatus): Date | null {
  if (status.kind !== "completed") return null;
  const times = status.outputs.map((o) => (o.expiresAt ? Date.parse(o.expiresAt) : Number.NaN)).filter(Number.isFinite);
  return times.length > 0 ? new Date(Math.min(...times)) : null;
}
