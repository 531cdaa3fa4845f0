import { serve } from "./delivery-routes";
import type { Fault } from "./faults";
import { lowercaseId, phaseOf, type SimJob } from "./jobs";
import { applyFault, type RouteContext, readJson, sendJson } from "./respond";
import { outputOrigin, type RouteMatch, type SimulatorProvider } from "./routes";

const CREATE = /^(.+):predictLongRunning$/;
const DOWNLOAD = /^(.+):download$/;

/**
 * A Veo operation's last name segment is a short lowercase token (the full name adds the model).
 * Its video is read from the API's own files route with the key, never from a CDN.
 */
export const veoSimulator: SimulatorProvider = {
  name: "veo",
  routes: { veo: (method, parts) => veoRoute(method, parts) },
  classify(parts) {
    if (parts[4] === "operations" && parts.length === 6) return { call: "status", jobId: parts[5] };
    if (parts[2] === "files" && parts.length === 4)
      return { call: "download", jobId: parts[3]?.replace(/:download$/, "") };
    return undefined;
  },
  cdnDelivery: false,
  defaultModel: "veo-3.1-generate-preview",
  newJobId: () => lowercaseId(12),
  providerJobId: (job) => veoOperationName(job),
};

/**
 * Routes under /veo that mirror the Gemini API (`/v1beta`): the operation read
 * (`GET models/{model}/operations/{id}`), the create (`POST models/{model}:predictLongRunning`) and
 * the video file (`GET files/{id}:download`); the create is also taken at Vertex AI's publisher path.
 * The file, like Google's, needs the API key: a download without it is refused, so an adapter that
 * forgets the key fails here, and one that sent it elsewhere is caught by its own tests. There is no operation list, so no list route to fault.
 */
export function veoRoute(method: string, parts: string[]): RouteMatch | undefined {
  const [version, kind, third, fourth, id] = parts;
  if (version !== "v1beta" || !kind || !third) return undefined;
  const provider = "veo" as const;
  if (method === "GET" && kind === "models" && fourth === "operations" && id && parts.length === 5) {
    return { provider, route: "status", jobId: id, handle: (ctx) => get(ctx, third, id) };
  }
  // @google/genai 3.x creates videos only through Vertex AI (with an API key, in express mode), whose
  // path names the publisher: `publishers/google/models/{model}:predictLongRunning`. Same job, same answer.
  const vertex = kind === "publishers" && third === "google" && fourth === "models" && parts.length === 5;
  const createName = parts.length === 3 && kind === "models" ? third : vertex ? id : undefined;
  const create = method === "POST" && createName ? CREATE.exec(createName) : null;
  if (create?.[1]) {
    const model = create[1];
    return { provider, route: "create", handle: (ctx, fault) => createOperation(ctx, fault, model) };
  }
  const file = method === "GET" && kind === "files" && parts.length === 3 ? DOWNLOAD.exec(third) : null;
  if (file?.[1]) {
    const jobId = file[1];
    return { provider, route: "download", jobId, handle: (ctx, fault) => download(ctx, fault, jobId) };
  }
  return undefined;
}

export const veoOperationName = (job: Pick<SimJob, "model" | "id">) => `models/${job.model}/operations/${job.id}`;

/** The operation as the Veo guide reads it (lib/providers/veo/recorded.ts). */
export function operationJson(job: SimJob, ctx: Pick<RouteContext, "state" | "origin">) {
  const name = veoOperationName(job);
  if (phaseOf(job, ctx.state.clock.now()) !== "done") return { name };
  if (job.outcome === "succeeded") {
    return { name, done: true, response: { generateVideoResponse: { generatedSamples: [sampleOf(job, ctx)] } } };
  }
  // google.rpc.Code 1 is CANCELLED; the guide documents no cancel, but a status can still say so.
  const error =
    job.outcome === "canceled" ? { code: 1, message: "Operation cancelled." } : { code: 3, message: job.error };
  return { name, done: true, error };
}

/** A generated sample in the job's shape: its file's URI, its bytes inline (`encodedVideo`), or neither. */
function sampleOf(job: SimJob, ctx: Pick<RouteContext, "state" | "origin">) {
  if (job.outputShape === "inline") {
    return { video: { encodedVideo: ctx.state.output(job).toString("base64"), encoding: "video/mp4" } };
  }
  if (job.outputShape === "unreadable") return { video: {} };
  return { video: { uri: `${outputOrigin(ctx)}/veo/v1beta/files/${job.id}:download?alt=media` } };
}

const notFound = { error: { code: 404, message: "Operation not found.", status: "NOT_FOUND" } };

function get(ctx: RouteContext, model: string, id: string) {
  const job = ctx.state.find("veo", id);
  const hidden = !job || job.model !== model || phaseOf(job, ctx.state.clock.now()) === "hidden";
  if (hidden) return sendJson(ctx.res, 404, notFound);
  sendJson(ctx.res, 200, operationJson(job, ctx));
}

async function download(ctx: RouteContext, fault: Fault | undefined, jobId: string) {
  if (ctx.token && ctx.req.headers["x-goog-api-key"] !== ctx.token) {
    const denied = {
      error: { code: 403, message: "Method doesn't allow unregistered callers.", status: "PERMISSION_DENIED" },
    };
    return sendJson(ctx.res, 403, denied);
  }
  await serve(ctx, fault, "veo", jobId);
}

/** Demo traffic only. A hang or reset fault still creates the operation: the accepted-but-lost case. */
async function createOperation(ctx: RouteContext, fault: Fault | undefined, model: string) {
  if (fault?.type === "http_error" || fault?.type === "rate_limit") {
    await applyFault(fault, ctx);
    return;
  }
  const body = await readJson(ctx.req).catch(() => undefined);
  const record = typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {};
  if (!Array.isArray(record.instances) || record.instances.length === 0) {
    return sendJson(ctx.res, 400, {
      error: { code: 400, message: "instances is required", status: "INVALID_ARGUMENT" },
    });
  }
  const job = ctx.state.createJob({ provider: "veo", model, input: record });
  if ((await applyFault(fault, ctx)) === "handled") return;
  sendJson(ctx.res, 200, { name: veoOperationName(job) });
}
