import { adapterKit, authHeaders, createdWithin, unknownFrom, withAttempts } from "../adapter-kit";
import {
  type AdapterConfig,
  type CallOptions,
  type ListedJob,
  type ListJobsResult,
  type ListWindow,
  type ProviderAdapter,
  type ProviderCapabilities,
  UNLISTED_JOB_SETTLING_SECONDS,
} from "../types";
import { generationToStatus, listPage } from "./transform";

export const LUMA_BASE_URL = "https://api.lumalabs.ai/dream-machine/v1";
/**
 * Luma's reference names no host for `assets.video` and no lifetime for it, so no delivery host is
 * allowed beyond the API's own: a URL elsewhere is refused and the case parks with that evidence
 * (docs/providers.md, "Luma").
 */
export const LUMA_DELIVERY_HOSTS: string[] = [];
const PAGE_SIZE = 100;
const DEFAULT_MAX_PAGES = 10;

/** A list of generations (limit and offset only), no client reference. */
export const LUMA_CAPABILITIES: ProviderCapabilities = {
  findByClientReference: false,
  listJobs: true,
  listJobsRequiresModel: false,
  noJobSettlingSeconds: UNLISTED_JOB_SETTLING_SECONDS,
  // Luma's `request` echo is its own record of the generation (its defaults, the callback URL), not
  // the producer's body byte for byte: a copy that differs proves nothing.
  requestCopyMayDiffer: true,
};

/**
 * Read-only Luma Dream Machine client: generation status, the generation list for reconciliation, and
 * output downloads. The list takes no time or model filter and its order is not documented, so a
 * search reads it from the start and is complete only once Luma says nothing more follows: a list
 * longer than the page bound gives an incomplete answer, from which nothing is concluded.
 */
export function createLumaAdapter(config: AdapterConfig): ProviderAdapter {
  const kit = adapterKit(config, LUMA_DELIVERY_HOSTS);
  const headers = authHeaders("Bearer", config.apiKey);
  const get = (url: string, options: CallOptions) => kit.get({ url, headers }, options);

  async function listJobs(window: ListWindow, options: CallOptions = {}): Promise<ListJobsResult> {
    const found = new Map<string, ListedJob>();
    const jobs = () => [...found.values()];
    const maxPages = window.maxPages ?? DEFAULT_MAX_PAGES;
    let offset = 0;
    for (let pages = 1; pages <= maxPages; pages++) {
      const query = new URLSearchParams({ limit: String(PAGE_SIZE), offset: String(offset) });
      const answer = await get(`${kit.baseUrl}/generations?${query}`, options);
      if (answer.kind === "unknown") return { kind: "unknown", reason: answer.reason, jobs: jobs(), pages };
      const page = answer.status === 200 ? listPage(answer.body) : undefined;
      if (!page) return { kind: "unknown", reason: `unreadable_page:http_${answer.status}`, jobs: jobs(), pages };
      // An offset list shifts while generations are added: the same one may appear twice, kept once.
      for (const job of page.jobs) if (createdWithin(job, window)) found.set(job.providerJobId, job);
      if (!page.hasMore) return { kind: "ok", jobs: jobs(), complete: true, pages };
      if (page.received === 0) return { kind: "unknown", reason: "empty_page_with_more", jobs: jobs(), pages };
      offset += page.received;
    }
    return { kind: "ok", jobs: jobs(), complete: false, pages: maxPages };
  }

  return {
    provider: "luma",
    capabilities: LUMA_CAPABILITIES,
    async getJob(ref, options = {}) {
      const answer = await get(`${kit.baseUrl}/generations/${encodeURIComponent(ref.providerJobId)}`, options);
      if (answer.kind === "unknown") return unknownFrom(answer);
      return withAttempts(generationToStatus(answer.status, answer.body), answer.attempts);
    },
    downloadOutput: kit.downloadOutput,
    listJobs,
  };
}
