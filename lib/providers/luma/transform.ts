import { isHttpUrl, isObject, nonEmptyText } from "../json";
import type { JobStatus, ListedJob } from "../types";

const unknown = (reason: string, httpStatus: number): JobStatus => ({
  kind: "unknown",
  reason,
  attempts: 1,
  httpStatus,
});

/**
 * Pure mapping of one `GET /generations/{id}` answer; transport failures never reach here. Luma's
 * reference gives no meaning to a 404 (a generation may also have been deleted with `DELETE`), so it
 * is reported as `unknown`, never as "no such job": the case parks with the answer as evidence.
 */
export function generationToStatus(httpStatus: number, body: unknown): JobStatus {
  if (httpStatus !== 200)
    return unknown(httpStatus === 401 || httpStatus === 403 ? "unauthorised" : `http_${httpStatus}`, httpStatus);
  if (!isObject(body) || typeof body.state !== "string") return unknown("malformed_response", httpStatus);
  const providerStatus = body.state;
  switch (providerStatus) {
    case "queued":
    case "dreaming":
      return { kind: "running", providerStatus };
    case "completed": {
      // `Generation.assets` (lumaai): `video` for a video generation, `image` for an image one
      // (`generation_type`); `progress_video` is a preview, never the result, and a video
      // generation's `image` is its thumbnail, never the paid video. A completion without its own
      // asset is not something the reference describes: not asserted either way.
      const assets = isObject(body.assets) ? body.assets : {};
      const asset = body.generation_type === "image" ? assets.image : assets.video;
      if (!isHttpUrl(asset)) return unknown("malformed_response", httpStatus);
      return { kind: "completed", providerStatus, outputs: [{ url: asset }], outputsRemoved: false };
    }
    case "failed": {
      const reason = nonEmptyText(body.failure_reason)?.slice(0, 500) ?? "failed";
      return { kind: "failed", providerStatus, reason, canceled: false };
    }
    default:
      return unknown(`unrecognised_status:${providerStatus.slice(0, 40)}`, httpStatus);
  }
}

export type LumaListPage = { jobs: ListedJob[]; received: number; hasMore: boolean };

/**
 * `GET /generations?limit&offset`: `generations` is required, `has_more` says whether more follow.
 * `received` counts every item, readable or not, so the next offset never skips one.
 */
export function listPage(body: unknown): LumaListPage | undefined {
  if (!isObject(body) || !Array.isArray(body.generations)) return undefined;
  const jobs = body.generations.flatMap((item): ListedJob[] => {
    if (!isObject(item) || !nonEmptyText(item.id) || !nonEmptyText(item.created_at)) return [];
    const state = typeof item.state === "string" ? item.state : "";
    const request = isObject(item.request) ? item.request : undefined;
    return [
      {
        providerJobId: item.id as string,
        model: nonEmptyText(item.model) ?? nonEmptyText(request?.model),
        createdAt: item.created_at as string,
        status: listedStatus(state),
        providerStatus: state,
        input: request,
      },
    ];
  });
  return { jobs, received: body.generations.length, hasMore: body.has_more === true };
}

function listedStatus(state: string): ListedJob["status"] {
  if (state === "queued" || state === "dreaming") return "running";
  if (state === "completed") return "completed";
  if (state === "failed") return "failed";
  return "unknown";
}
