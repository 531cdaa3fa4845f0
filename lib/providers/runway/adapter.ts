import { adapterKit, authHeaders, unknownFrom, withAttempts } from "../adapter-kit";
import {
  type AdapterConfig,
  type ProviderAdapter,
  type ProviderCapabilities,
  UNLISTED_JOB_SETTLING_SECONDS,
} from "../types";
import { RUNWAY_OUTPUT_RETENTION_SECONDS, taskToStatus } from "./transform";

export const RUNWAY_BASE_URL = "https://api.dev.runwayml.com";
/**
 * The API version this adapter reads (`X-Runway-Version`, required on every request). A new version
 * is created only for incompatible changes; old ones are served four months after ("API versioning").
 */
export const RUNWAY_API_VERSION = "2024-11-06";
/**
 * The one delivery host Runway's documentation shows ("Output formats"). Not `*.cloudfront.net`: that
 * is every CloudFront customer's host. A URL elsewhere is refused and the case parks with that evidence.
 */
export const RUNWAY_DELIVERY_HOSTS = ["dnznrvs05pmza.cloudfront.net"];

/** No list and no client reference: Runway's task API is `GET` and `DELETE /v1/tasks/{id}` only. */
export const RUNWAY_CAPABILITIES: ProviderCapabilities = {
  findByClientReference: false,
  listJobs: false,
  listJobsRequiresModel: false,
  outputRetentionSeconds: RUNWAY_OUTPUT_RETENTION_SECONDS,
  noJobSettlingSeconds: UNLISTED_JOB_SETTLING_SECONDS,
};

/**
 * Read-only Runway client: task status and output downloads. Runway's task API has no list and no
 * client reference (only `GET` and `DELETE /v1/tasks/{id}`), so reconciliation cannot search it: a
 * lost task ID is found from Runway's own records, and "no job exists" rests on its billing.
 */
export function createRunwayAdapter(config: AdapterConfig): ProviderAdapter {
  const kit = adapterKit(config, RUNWAY_DELIVERY_HOSTS);
  const headers = { ...authHeaders("Bearer", config.apiKey), "x-runway-version": RUNWAY_API_VERSION };
  return {
    provider: "runway",
    capabilities: RUNWAY_CAPABILITIES,
    async getJob(ref, options = {}) {
      const answer = await kit.get(
        { url: `${kit.baseUrl}/v1/tasks/${encodeURIComponent(ref.providerJobId)}`, headers },
        options,
      );
      if (answer.kind === "unknown") return unknownFrom(answer);
      return withAttempts(taskToStatus(answer.status, answer.body), answer.attempts);
    },
    downloadOutput: kit.downloadOutput,
  };
}
