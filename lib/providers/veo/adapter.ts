import { adapterKit, INLINE_ANSWER_MAX_BYTES, unknownFrom, withAttempts } from "../adapter-kit";
import {
  type AdapterConfig,
  type ProviderAdapter,
  type ProviderCapabilities,
  ProviderConfigError,
  UNLISTED_JOB_SETTLING_SECONDS,
} from "../types";
import { operationToStatus, VEO_OUTPUT_RETENTION_SECONDS } from "./transform";

/** The Gemini API; an operation is read at `{base}/{operation name}` (Veo guide, REST). */
export const VEO_BASE_URL = "https://generativelanguage.googleapis.com/v1beta";
/**
 * A video's `uri` is on the API host itself (`…/v1beta/files/{id}:download?alt=media`), which the
 * allow-list always holds. Where that URL redirects is not documented, so no other host is added: a
 * hop elsewhere is refused and the case parks with that evidence.
 */
export const VEO_DELIVERY_HOSTS: string[] = [];

/**
 * The Veo guide documents reading one operation by name and nothing else: no list of Veo operations,
 * no client reference (a request carries no caller's id), so reconciliation cannot search Veo and
 * "no job exists" rests on the Google Cloud billing of the key's project.
 */
export const VEO_CAPABILITIES: ProviderCapabilities = {
  findByClientReference: false,
  listJobs: false,
  listJobsRequiresModel: false,
  outputRetentionSeconds: VEO_OUTPUT_RETENTION_SECONDS,
  noJobSettlingSeconds: UNLISTED_JOB_SETTLING_SECONDS,
};

/** Segments as Google names them (`models/veo-3.1-generate-preview/operations/k3tq9x1cvb7m`). */
const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** Why `name` is not an operation name this adapter can read, or null when it is. */
export function operationNameProblem(name: string): string | null {
  const segments = name.split("/");
  if (segments.length < 2 || segments.length > 8 || !segments.every((s) => SEGMENT.test(s) && s.length <= 128)) {
    return "a Veo job ID is the Veo operation name in full, models/{model}/operations/{id}";
  }
  return null;
}

/** The operation's path under the base URL; anything that could step outside it is refused. */
export function operationPath(name: string): string {
  const problem = operationNameProblem(name);
  if (problem) throw new ProviderConfigError(`${problem}: ${name}`);
  return name;
}

/**
 * Read-only Veo client through the Gemini API: the operation's state and the video's download. The
 * download needs the API key (Veo guide: the URI is fetched "using the URI and API key"), so the key
 * travels only to the base URL's own host; a redirect to any other host gets no key.
 */
export function createVeoAdapter(config: AdapterConfig): ProviderAdapter {
  const keyHeaders: Record<string, string> = config.apiKey ? { "x-goog-api-key": config.apiKey } : {};
  const kit = adapterKit(config, VEO_DELIVERY_HOSTS, keyHeaders);
  return {
    provider: "veo",
    capabilities: VEO_CAPABILITIES,
    async getJob(ref, options = {}) {
      const answer = await kit.get(
        {
          url: `${kit.baseUrl}/${operationPath(ref.providerJobId)}`,
          headers: keyHeaders,
          maxBodyBytes: INLINE_ANSWER_MAX_BYTES,
        },
        options,
      );
      if (answer.kind === "unknown") return unknownFrom(answer);
      return withAttempts(operationToStatus(answer.status, answer.body), answer.attempts);
    },
    downloadOutput: kit.downloadOutput,
  };
}
