import { replicatePredictionPage } from "./replicate/job-page";

export type JobPage = { url: string } | { url: null; why: string };

/**
 * Where a person can look at a provider job in the provider's own console, or why there is no page
 * to link:
 * - Replicate: the prediction's web page (replicate/job-page.ts).
 * - fal: its documentation names no per-request page (the queue's status and response URLs are API
 *   calls that need the key, not pages), so none is guessed (docs/providers.md).
 * - Runway: its documentation names no page for one task (the API reference has only the task's API
 *   address, which needs the key), so none is guessed.
 * - Veo: an operation is an API resource read with the key; the guide names no page for one.
 * - Luma: its documentation names no page for one generation (only the API address, which needs the
 *   key), so none is guessed.
 * - the simulator: its jobs exist only on this machine; a link to the real provider would open a
 *   page about somebody else's job, or none.
 * Pure, so the console and its tests can call it.
 */
export function providerJobPage(job: { provider: string; providerJobId: string; mode: "simulator" | "live" }): JobPage {
  if (job.mode !== "live") return { url: null, why: "simulated job: no provider page" };
  if (job.provider === "replicate") return { url: replicatePredictionPage(job.providerJobId) };
  if (job.provider === "fal") return { url: null, why: "fal has no page for one request" };
  if (job.provider === "runway") return { url: null, why: "Runway has no page for one task" };
  if (job.provider === "veo") return { url: null, why: "Veo has no page for one operation" };
  if (job.provider === "luma") return { url: null, why: "Luma has no page for one generation" };
  return { url: null, why: `no known page at ${job.provider}` };
}
