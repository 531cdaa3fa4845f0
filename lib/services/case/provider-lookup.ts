import type { ListedJob, ListJobsResult, ProviderAdapter } from "@/lib/providers";

/** One question put to the provider during a search, as recorded in evidence. */
export type Lookup = {
  source: "client_reference" | "list";
  outcome: "ok" | "incomplete" | "unknown";
  reason?: string;
  pages: number;
  listed: number;
};

export type Candidate = { job: ListedJob; viaReference: boolean };

/**
 * Asks the provider for jobs near a submission: by client reference where the adapter can, and by
 * listing the window. Only complete answers yield candidates; every answer is described in `lookups`.
 */
export async function lookUp(
  adapter: ProviderAdapter,
  window: { from: Date; to: Date; model: string; clientReference: string },
  signal: AbortSignal | undefined,
): Promise<{ lookups: Lookup[]; candidates: Map<string, Candidate> }> {
  const lookups: Lookup[] = [];
  const candidates = new Map<string, Candidate>();
  const take = (source: Lookup["source"], result: ListJobsResult) => {
    const usable = result.kind === "ok" && result.complete;
    lookups.push({
      source,
      outcome: result.kind === "unknown" ? "unknown" : result.complete ? "ok" : "incomplete",
      ...(result.kind === "unknown" ? { reason: result.reason } : {}),
      pages: result.pages,
      listed: result.jobs.length,
    });
    // A partial answer proves nothing and may hide the better match: nothing from it is suggested.
    if (!usable) return;
    for (const job of result.jobs) {
      const known = candidates.get(job.providerJobId);
      candidates.set(job.providerJobId, {
        job: known?.job.input !== undefined ? known.job : job,
        viaReference: (known?.viaReference ?? false) || source === "client_reference",
      });
    }
  };
  if (adapter.capabilities.findByClientReference && adapter.findByClientReference) {
    take("client_reference", await adapter.findByClientReference(window.clientReference, { signal }));
  }
  if (adapter.capabilities.listJobs && adapter.listJobs) {
    // The model narrows the listing only where the provider insists on it (fal's log is per endpoint);
    // elsewhere the whole window is read, so a differently spelled model name cannot hide the job.
    const model = adapter.capabilities.listJobsRequiresModel ? window.model : undefined;
    take("list", await adapter.listJobs({ from: window.from, to: window.to, model }, { signal }));
  }
  return { lookups, candidates };
}
