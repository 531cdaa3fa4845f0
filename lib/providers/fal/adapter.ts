import type { UsageLineFacts } from "@/lib/domain/usage";
import { readFalBillingEvents } from "@/lib/domain/usage-fal";
import {
  adapterKit,
  authHeaders,
  INLINE_ANSWER_MAX_BYTES,
  normaliseBaseUrl,
  unknownFrom,
  withAttempts,
} from "../adapter-kit";
import {
  type AdapterConfig,
  type CallOptions,
  type JobCostsResult,
  type ListedJob,
  type ListJobsResult,
  type ListWindow,
  type ProviderAdapter,
  type ProviderCapabilities,
  ProviderConfigError,
  UNLISTED_JOB_SETTLING_SECONDS,
} from "../types";
import { FAL_RESULT_RETENTION_SECONDS, requestsPage, resultToStatus, statusToStep } from "./transform";

export const FAL_QUEUE_BASE_URL = "https://queue.fal.run";
export const FAL_PLATFORM_BASE_URL = "https://api.fal.ai/v1";
/** fal's CDN serves outputs from v3.fal.media and falls back to fal.media (docs: "fal CDN"). */
export const FAL_DELIVERY_HOSTS = ["fal.media", "*.fal.media"];
const DEFAULT_MAX_PAGES = 10;
/** Billing events take at most 50 request IDs per call. */
const BILLING_EVENT_IDS = 50;

export const FAL_CAPABILITIES: ProviderCapabilities = {
  findByClientReference: false,
  listJobs: true,
  listJobsRequiresModel: true,
  outputRetentionSeconds: FAL_RESULT_RETENTION_SECONDS,
  noJobSettlingSeconds: UNLISTED_JOB_SETTLING_SECONDS,
};

export type FalAdapterConfig = AdapterConfig & { platformBaseUrl?: string };

/**
 * Status and results are addressed by app id (`owner/app`): fal's docs say an endpoint's sub-path
 * (`/v2.5-turbo/pro/text-to-video`) is used to submit but not to read status or results.
 */
export function falAppId(model: string): string {
  const parts = model.split("/").filter(Boolean);
  // Validated rather than escaped: a model id is configuration, and a strange one is a mistake.
  if (parts.length < 2 || !parts.slice(0, 2).every((part) => /^[A-Za-z0-9._-]+$/.test(part))) {
    throw new ProviderConfigError(`fal model id must look like owner/app[/path]: ${model}`);
  }
  return `${parts[0]}/${parts[1]}`;
}

/**
 * Read-only fal client. fal requests carry no client reference, so findByClientReference is absent;
 * listJobs reads the platform API's request log, which is kept per endpoint and needs the model.
 */
export function createFalAdapter(config: FalAdapterConfig): ProviderAdapter {
  const kit = adapterKit(config, FAL_DELIVERY_HOSTS);
  const platformBaseUrl = normaliseBaseUrl(config.platformBaseUrl ?? FAL_PLATFORM_BASE_URL);
  const headers = authHeaders("Key", config.apiKey);

  async function getJob(ref: { providerJobId: string; model?: string }, options: CallOptions = {}) {
    if (!ref.model) throw new ProviderConfigError("fal needs the model (endpoint id) to read a request");
    const requestUrl = `${kit.baseUrl}/${falAppId(ref.model)}/requests/${encodeURIComponent(ref.providerJobId)}`;
    const status = await kit.get({ url: `${requestUrl}/status`, headers }, options);
    if (status.kind === "unknown") return unknownFrom(status);
    const step = statusToStep(status.status, status.body);
    if (step.kind !== "fetch_result") return withAttempts(step, status.attempts);
    const result = await kit.get(
      {
        url: requestUrl,
        headers,
        // A File may carry its bytes (a data: URI or `file_data`), so a result may be large.
        maxBodyBytes: INLINE_ANSWER_MAX_BYTES,
        // A response carrying fal's error type is the stored outcome; asking again returns the same.
        isFinal: (_code, responseHeaders) => responseHeaders.has("x-fal-error-type"),
      },
      options,
    );
    const attempts = status.attempts + result.attempts;
    if (result.kind === "unknown") return withAttempts(unknownFrom(result), attempts);
    return withAttempts(resultToStatus(result.status, result.body, result.headers.get("x-fal-error-type")), attempts);
  }

  async function listJobs(window: ListWindow, options: CallOptions = {}): Promise<ListJobsResult> {
    const jobs: ListedJob[] = [];
    if (!window.model) return { kind: "unknown", reason: "model_required", jobs, pages: 0 };
    const maxPages = window.maxPages ?? DEFAULT_MAX_PAGES;
    let cursor: string | undefined;
    for (let pages = 1; pages <= maxPages; pages++) {
      const query = new URLSearchParams({
        endpoint_id: window.model,
        start: window.from.toISOString(),
        end: window.to.toISOString(),
        limit: "100",
        expand: "payloads",
      });
      if (cursor) query.set("cursor", cursor);
      const answer = await kit.get(
        { url: `${platformBaseUrl}/models/requests/by-endpoint?${query}`, headers },
        options,
      );
      if (answer.kind === "unknown") return { kind: "unknown", reason: answer.reason, jobs, pages };
      const page = answer.status === 200 ? requestsPage(answer.body) : undefined;
      if (!page) return { kind: "unknown", reason: `unreadable_page:http_${answer.status}`, jobs, pages };
      jobs.push(...page.jobs.filter((job) => within(job, window)));
      cursor = page.nextCursor;
      if (!cursor) return { kind: "ok", jobs, complete: true, pages };
    }
    return { kind: "ok", jobs, complete: false, pages: maxPages };
  }

  /** The Platform API's billing events for up to 50 requests at a time (its documented limit), every page. */
  async function jobCosts(providerJobIds: readonly string[], options: CallOptions = {}): Promise<JobCostsResult> {
    const costs: UsageLineFacts[] = [];
    for (let i = 0; i < providerJobIds.length; i += BILLING_EVENT_IDS) {
      const ids = providerJobIds.slice(i, i + BILLING_EVENT_IDS).join(",");
      let cursor: string | undefined;
      for (let pages = 1; ; pages++) {
        if (pages > DEFAULT_MAX_PAGES) return { kind: "unknown", reason: "too_many_pages" };
        const query = new URLSearchParams({ request_id: ids, limit: "100" });
        if (cursor) query.set("cursor", cursor);
        const answer = await kit.get({ url: `${platformBaseUrl}/models/billing-events?${query}`, headers }, options);
        if (answer.kind === "unknown") return { kind: "unknown", reason: answer.reason };
        const page = answer.status === 200 ? readFalBillingEvents(answer.body) : undefined;
        if (!page || page.problems.length > 0)
          return { kind: "unknown", reason: `unreadable_billing_events:http_${answer.status}` };
        costs.push(...page.lines);
        const body = answer.body as { has_more?: unknown; next_cursor?: unknown };
        cursor = body.has_more === true && typeof body.next_cursor === "string" ? body.next_cursor : undefined;
        if (!cursor) break;
      }
    }
    return { kind: "ok", costs };
  }

  return {
    provider: "fal",
    capabilities: FAL_CAPABILITIES,
    getJob,
    downloadOutput: kit.downloadOutput,
    listJobs,
    jobCosts,
  };
}

function within(job: ListedJob, window: ListWindow): boolean {
  const sent = Date.parse(job.createdAt);
  return !Number.isNaN(sent) && sent >= window.from.getTime() && sent < window.to.getTime();
}
