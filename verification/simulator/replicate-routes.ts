import { createHash } from "node:crypto";
import { billedSeconds } from "./costs";
import type { Fault } from "./faults";
import { cancelJob, completedAt, lowercaseId, phaseOf, type SimJob, startedAt } from "./jobs";
import { applyFault, type RouteContext, readJson, sendJson } from "./respond";
import {
  decodeCursor,
  encodeCursor,
  iso,
  outputUrlOf,
  parseTime,
  type RouteMatch,
  type SimulatorProvider,
} from "./routes";

/** Replicate prediction IDs are 26 lowercase base-32 characters. */
export const replicateSimulator: SimulatorProvider = {
  name: "replicate",
  routes: { replicate: (method, parts) => replicateRoute(method, parts) },
  classify: (parts) =>
    parts[2] === "predictions" && parts.length === 4 ? { call: "status", jobId: parts[3] } : undefined,
  cdnDelivery: true,
  defaultModel: "minimax/video-01",
  newJobId: () => lowercaseId(26),
};

/**
 * Routes under /replicate that mirror api.replicate.com/v1: predictions.get, .list, .create, .cancel
 * (`POST /v1/predictions/{id}/cancel`) and the account's webhook signing secret
 * (`GET /v1/webhooks/default/secret`, the client's `webhooks.default.secret.get`).
 */
export function replicateRoute(method: string, parts: string[]): RouteMatch | undefined {
  const [v1, kind, a, b, c] = parts;
  if (v1 !== "v1") return undefined;
  const provider = "replicate" as const;
  if (kind === "predictions" && parts.length === 2) {
    if (method === "GET") return { provider, route: "list", handle: list };
    if (method === "POST") return { provider, route: "create", handle: (ctx, fault) => create(ctx, fault, undefined) };
  }
  if (kind === "predictions" && parts.length === 3 && method === "GET" && a) {
    return { provider, route: "status", jobId: a, handle: (ctx) => get(ctx, a) };
  }
  if (kind === "predictions" && parts.length === 4 && method === "POST" && a && b === "cancel") {
    return { provider, route: "cancel", jobId: a, handle: (ctx) => cancel(ctx, a) };
  }
  if (kind === "webhooks" && a === "default" && b === "secret" && parts.length === 4 && method === "GET") {
    return {
      provider,
      route: "status",
      handle: (ctx) => sendJson(ctx.res, 200, { key: ctx.state.webhooks.replicateSecret }),
    };
  }
  const modelCreate = (kind === "models" || kind === "deployments") && parts.length === 5 && c === "predictions";
  if (modelCreate && method === "POST") {
    return { provider, route: "create", handle: (ctx, fault) => create(ctx, fault, `${a}/${b}`) };
  }
  return undefined;
}

/** A model's version ID here: the hash of its name, so a version names exactly one model. */
const versionOf = (model: string) => createHash("sha256").update(model).digest("hex");

export function predictionJson(job: SimJob, ctx: Pick<RouteContext, "state" | "origin">) {
  const now = ctx.state.clock.now();
  const phase = phaseOf(job, now);
  const done = phase === "done";
  // API predictions lose input, output and logs after the retention period (docs: "Data retention").
  const removed = done && now >= completedAt(job) + job.outputTtlMs;
  const self = `${ctx.origin}/replicate/v1/predictions/${job.id}`;
  const status = phase === "queued" ? "starting" : phase === "running" ? "processing" : job.outcome;
  return {
    id: job.id,
    model: job.model,
    version: versionOf(job.model),
    input: removed ? {} : job.input,
    logs: phase === "queued" || removed ? null : "Simulated run\n",
    output: done && job.outcome === "succeeded" && !removed ? outputOf(job, ctx) : null,
    data_removed: removed,
    error: done && job.outcome === "failed" ? job.error : null,
    status,
    created_at: iso(job.createdAt),
    started_at: phase === "queued" ? null : iso(startedAt(job)),
    completed_at: done ? iso(completedAt(job)) : null,
    source: "api",
    metrics: done ? metricsOf(job) : {},
    urls: { get: self, cancel: `${self}/cancel`, web: `${ctx.origin}/replicate/p/${job.id}` },
  };
}

/** What the run measured; a succeeded video also its seconds, as models priced per second of video say. */
function metricsOf(job: SimJob) {
  const times = { predict_time: job.runningMs / 1000, total_time: (job.queuedMs + job.runningMs) / 1000 };
  return job.outcome === "succeeded" ? { ...times, video_output_duration_seconds: billedSeconds(job) } : times;
}

/** The prediction's `output` in the job's shape (typed `any` by Replicate's client). */
function outputOf(job: SimJob, ctx: Pick<RouteContext, "state" | "origin">): unknown {
  const url = outputUrlOf(ctx, job);
  switch (job.outputShape) {
    case "nested":
      return [[url]];
    case "inline":
      return `data:video/mp4;base64,${ctx.state.output(job).toString("base64")}`;
    case "unreadable":
      return { seed: 42, message: "done" };
    default:
      return url;
  }
}

const notFound = (ctx: RouteContext) =>
  sendJson(ctx.res, 404, { title: "Not found", detail: "Not found.", status: 404 });

function get(ctx: RouteContext, id: string) {
  const job = ctx.state.find("replicate", id);
  if (!job || phaseOf(job, ctx.state.clock.now()) === "hidden") return notFound(ctx);
  sendJson(ctx.res, 200, predictionJson(job, ctx));
}

/**
 * Replicate's cancel answers the prediction: `canceled` when it had not finished, unchanged when it
 * had (the call is not an error then).
 */
function cancel(ctx: RouteContext, id: string) {
  const job = ctx.state.find("replicate", id);
  const now = ctx.state.clock.now();
  if (!job || phaseOf(job, now) === "hidden") return notFound(ctx);
  cancelJob(job, now);
  sendJson(ctx.res, 200, predictionJson(job, ctx));
}

/**
 * The model a version ID names, as Replicate reports `owner/name` for a create by version: either
 * `owner/name:version` or a bare version ID of a model the simulator knows (its default, or one of its jobs').
 */
function modelOfVersion(ctx: RouteContext, version: string): string | undefined {
  const [named, hash] = version.includes(":") ? version.split(":", 2) : [undefined, version];
  if (named?.includes("/")) return named;
  const known = new Set([replicateSimulator.defaultModel, ...[...ctx.state.jobs.values()].map((job) => job.model)]);
  return [...known].find((model) => versionOf(model) === hash);
}

/** Newest first, 100 per page by default, `next` is a full URL carrying the cursor and filters. */
function list(ctx: RouteContext) {
  const now = ctx.state.clock.now();
  const after = parseTime(ctx.url.searchParams.get("created_after"), Number.NEGATIVE_INFINITY);
  const before = parseTime(ctx.url.searchParams.get("created_before"), Number.POSITIVE_INFINITY);
  const matching = [...ctx.state.jobs.values()]
    .filter((job) => job.provider === "replicate" && phaseOf(job, now) !== "hidden")
    .filter((job) => job.createdAt >= after && job.createdAt < before)
    .sort((x, y) => y.createdAt - x.createdAt);
  const offset = decodeCursor(ctx.url.searchParams.get("cursor"));
  const size = ctx.state.listPageSize;
  const pageUrl = (at: number) => {
    const next = new URL(`${ctx.origin}/replicate/v1/predictions${ctx.url.search}`);
    next.searchParams.set("cursor", encodeCursor(at));
    return next.toString();
  };
  sendJson(ctx.res, 200, {
    previous: offset > 0 ? pageUrl(Math.max(0, offset - size)) : null,
    next: offset + size < matching.length ? pageUrl(offset + size) : null,
    results: matching.slice(offset, offset + size).map((job) => predictionJson(job, ctx)),
  });
}

/** Demo traffic only. A hang or reset fault still creates the job: the accepted-but-lost case. */
async function create(ctx: RouteContext, fault: Fault | undefined, model?: string) {
  if (fault?.type === "http_error" || fault?.type === "rate_limit") {
    await applyFault(fault, ctx);
    return;
  }
  const body = await readJson(ctx.req).catch(() => undefined);
  const record = typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {};
  if (typeof record.input !== "object" || record.input === null) {
    return sendJson(ctx.res, 422, { title: "Invalid input", detail: "input is required", status: 422 });
  }
  const version = typeof record.version === "string" ? record.version : undefined;
  const named = model ?? (version ? modelOfVersion(ctx, version) : undefined);
  if (!named) {
    const detail = "The specified version does not exist (or perhaps you don't have permission to use it?)";
    return sendJson(ctx.res, 422, { title: "Invalid version or not permitted", detail, status: 422 });
  }
  const job = ctx.state.createJob({ provider: "replicate", model: named, input: record.input });
  if (typeof record.webhook === "string") {
    ctx.state.webhooks.schedule(job, record.webhook, ctx.state.clock.now(), (kind) => ({
      ...predictionJson(job, ctx),
      ...(kind === "processing" ? { status: "processing", output: null, completed_at: null } : {}),
    }));
  }
  if ((await applyFault(fault, ctx)) === "handled") return;
  sendJson(ctx.res, 201, predictionJson(job, ctx));
}
