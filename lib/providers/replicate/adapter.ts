import {
  adapterKit,
  authHeaders,
  createdWithin,
  INLINE_ANSWER_MAX_BYTES,
  unknownFrom,
  withAttempts,
} from "../adapter-kit";
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
import { predictionMetrics } from "./metrics";
import { listPage, predictionToStatus, REPLICATE_OUTPUT_RETENTION_SECONDS } from "./transform";

export const REPLICATE_BASE_URL = "https://api.replicate.com";
/** Output files are served from replicate.delivery and its subdomains (docs: "Output files"). */
export const REPLICATE_DELIVERY_HOSTS = ["replicate.delivery", "*.replicate.delivery"];
const DEFAULT_MAX_PAGES = 10;

export const REPLICATE_CAPABILITIES: ProviderCapabilities = {
  findByClientReference: false,
  listJobs: true,
  listJobsRequiresModel: false,
  outputRetentionSeconds: REPLICATE_OUTPUT_RETENTION_SECONDS,
  noJobSettlingSeconds: UNLISTED_JOB_SETTLING_SECONDS,
};

/**
 * Read-only Replicate client: prediction status, the prediction list for reconciliation, and output
 * downloads. Replicate predictions carry no client reference, so findByClientReference is absent;
 * reconciliation searches the list by time window and compares inputs instead.
 */
export function createReplicateAdapter(config: AdapterConfig): ProviderAdapter {
  const kit = adapterKit(config, REPLICATE_DELIVERY_HOSTS);
  const headers = authHeaders("Bearer", config.apiKey);
  const get = (url: string, options: CallOptions) => kit.get({ url, headers }, options);

  async function listJobs(window: ListWindow, options: CallOptions = {}): Promise<ListJobsResult> {
    const jobs: ListedJob[] = [];
    const maxPages = window.maxPages ?? DEFAULT_MAX_PAGES;
    let cursor: string | undefined;
    for (let pages = 1; pages <= maxPages; pages++) {
      const query = new URLSearchParams({
        created_after: window.from.toISOString(),
        created_before: window.to.toISOString(),
      });
      if (cursor) query.set("cursor", cursor);
      const answer = await get(`${kit.baseUrl}/v1/predictions?${query}`, options);
      if (answer.kind === "unknown") return { kind: "unknown", reason: answer.reason, jobs, pages };
      const page = answer.status === 200 ? listPage(answer.body) : undefined;
      if (!page) return { kind: "unknown", reason: `unreadable_page:http_${answer.status}`, jobs, pages };
      const inWindow = page.jobs.filter((job) => createdWithin(job, window));
      jobs.push(...inWindow);
      // Newest first: once a page reaches past the window's start there is nothing older to see.
      const reachedStart = page.jobs.some((job) => Date.parse(job.createdAt) < window.from.getTime());
      // Only the cursor of `next` is used, on our own base URL, so the token never follows a foreign link.
      cursor = page.nextCursor;
      if (!cursor || reachedStart) return { kind: "ok", jobs, complete: true, pages };
    }
    return { kind: "ok", jobs, complete: false, pages: maxPages };
  }

  return {
    provider: "replicate",
    capabilities: REPLICATE_CAPABILITIES,
    async getJob(ref, options = {}) {
      // A prediction's output may be a data: URI (the file itself), so its answer may be large.
      const url = `${kit.baseUrl}/v1/predictions/${encodeURIComponent(ref.providerJobId)}`;
      const answer = await kit.get({ url, headers, maxBodyBytes: INLINE_ANSWER_MAX_BYTES }, options);
      if (answer.kind === "unknown") return unknownFrom(answer);
      return withAttempts(predictionToStatus(answer.status, answer.body), answer.attempts);
    },
    async jobMetrics(ref, options = {}) {
      const url = `${kit.baseUrl}/v1/predictions/${encodeURIComponent(ref.providerJobId)}`;
      const answer = await kit.get({ url, headers, maxBodyBytes: INLINE_ANSWER_MAX_BYTES }, options);
      if (answer.kind === "unknown") return { kind: "unknown", reason: answer.reason };
      return predictionMetrics(answer.status, answer.body);
    },
    downloadOutput: kit.downloadOutput,
    listJobs,
  };
}
