import { randomUUID } from "node:crypto";
import { billingEvents } from "./fal-billing-routes";
import type { Fault } from "./faults";
import { cancelJob, completedAt, phaseOf, type SimJob, startedAt } from "./jobs";
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

/** fal request IDs are UUIDs; its request log lives in the platform API, under a prefix of its own. */
export const falSimulator: SimulatorProvider = {
  name: "fal",
  routes: {
    fal: (method, parts) => falRoute(method, parts),
    "fal-platform": (method, parts) => falPlatformRoute(method, parts),
  },
  classify(parts) {
    if (parts[0] !== "fal") return undefined;
    if (parts.at(-3) === "requests") return { call: "status", jobId: parts.at(-2) };
    if (parts.at(-2) === "requests") return { call: "result", jobId: parts.at(-1) };
    return undefined;
  },
  cdnDelivery: true,
  defaultModel: "fal-ai/kling-video/v2.5-turbo/pro/text-to-video",
  newJobId: () => randomUUID(),
};

/**
 * Routes under /fal that mirror queue.fal.run: submit to `{owner}/{app}[/path]`, then status and
 * result under `{owner}/{app}/requests/{id}` (the endpoint's sub-path is not part of those URLs), and
 * cancel at `PUT {owner}/{app}/requests/{id}/cancel`.
 */
export function falRoute(method: string, parts: string[]): RouteMatch | undefined {
  const [owner, app, requests, id, tail] = parts;
  if (!owner || !app) return undefined;
  const appId = `${owner}/${app}`;
  const provider = "fal" as const;
  if (requests === "requests" && id && method === "GET") {
    if (parts.length === 5 && tail === "status")
      return { provider, route: "status", jobId: id, handle: (c) => status(c, appId, id) };
    if (parts.length === 4) return { provider, route: "result", jobId: id, handle: (c) => result(c, appId, id) };
    return undefined;
  }
  if (requests === "requests" && id && method === "PUT" && parts.length === 5 && tail === "cancel") {
    return { provider, route: "cancel", jobId: id, handle: (c) => cancel(c, appId, id) };
  }
  if (method === "POST" && requests !== "requests") {
    return { provider, route: "create", handle: (c, fault) => create(c, fault, parts.join("/")) };
  }
  return undefined;
}

/** Under /fal-platform/v1: the platform API's request log ("List requests by endpoint") and billing events. */
export function falPlatformRoute(method: string, parts: string[]): RouteMatch | undefined {
  if (method === "GET" && parts.join("/") === "v1/models/billing-events")
    return { provider: "fal", route: "list", handle: billingEvents };
  if (method !== "GET" || parts.join("/") !== "v1/models/requests/by-endpoint") return undefined;
  return { provider: "fal", route: "list", handle: requestsByEndpoint };
}

const appOf = (model: string) => model.split("/").slice(0, 2).join("/");
const notFound = (ctx: RouteContext) => sendJson(ctx.res, 404, { detail: "Request not found" });

function visibleJob(ctx: RouteContext, appId: string, id: string): SimJob | undefined {
  const job = ctx.state.find("fal", id);
  if (!job || appOf(job.model) !== appId || phaseOf(job, ctx.state.clock.now()) === "hidden") return undefined;
  return job;
}

type Site = Pick<RouteContext, "state" | "origin">;
export type FalAnswer = { code: number; body: Record<string, unknown>; headers?: Record<string, string> };

function urlsOf(ctx: Site, job: SimJob) {
  const base = `${ctx.origin}/fal/${appOf(job.model)}/requests/${job.id}`;
  return { response_url: base, status_url: `${base}/status`, cancel_url: `${base}/cancel` };
}

const errorTypeOf = (job: SimJob) => (job.outcome === "canceled" ? "client_cancelled" : "runner_server_error");

/** The status answer for a visible job: 202 while queued or running, 200 once COMPLETED. */
export function falStatusAnswer(ctx: Site, job: SimJob): FalAnswer {
  const phase = phaseOf(job, ctx.state.clock.now());
  const common = { request_id: job.id, ...urlsOf(ctx, job), logs: null };
  if (phase === "queued") return { code: 202, body: { status: "IN_QUEUE", queue_position: 0, ...common } };
  if (phase === "running") return { code: 202, body: { status: "IN_PROGRESS", ...common } };
  const failure =
    job.outcome !== "succeeded" && job.errorOnStatus ? { error: job.error, error_type: errorTypeOf(job) } : {};
  return {
    code: 200,
    body: { status: "COMPLETED", ...common, metrics: { inference_time: job.runningMs / 1000 }, ...failure },
  };
}

/** Replays the model's answer: output files, or the model's error with fal's error type. */
export function falResultAnswer(ctx: Site, job: SimJob): FalAnswer {
  const now = ctx.state.clock.now();
  if (phaseOf(job, now) !== "done") return { code: 400, body: { detail: "Request is still in progress" } };
  if (now >= completedAt(job) + job.resultTtlMs) return { code: 404, body: { detail: "Request not found" } };
  if (job.outcome !== "succeeded") {
    const errorType = errorTypeOf(job);
    const code = job.outcome === "canceled" ? 499 : 500;
    return { code, body: { detail: job.error, error_type: errorType }, headers: { "x-fal-error-type": errorType } };
  }
  const video = {
    url: outputUrlOf(ctx, job),
    content_type: "video/mp4",
    file_name: "output.mp4",
    file_size: job.outputBytes,
  };
  return { code: 200, body: { video, seed: 42 } };
}

function status(ctx: RouteContext, appId: string, id: string) {
  const job = visibleJob(ctx, appId, id);
  if (!job) return notFound(ctx);
  const answer = falStatusAnswer(ctx, job);
  // Asked with `logs=1` (as the official client's status and subscribe do), fal answers the run's log
  // lines, a list; without it, null.
  const withLogs = ctx.url.searchParams.get("logs") === "1" && answer.body.status !== "IN_QUEUE";
  const logs = withLogs
    ? [{ message: "Simulated run", level: "INFO", source: "user", timestamp: iso(startedAt(job)) }]
    : null;
  sendJson(ctx.res, answer.code, { ...answer.body, logs }, answer.headers);
}

/**
 * fal's queue cancel: 202 `CANCELLATION_REQUESTED` for a request still queued or running (it then
 * ends as cancelled), 400 `ALREADY_COMPLETED` for one that has finished.
 */
function cancel(ctx: RouteContext, appId: string, id: string) {
  const job = visibleJob(ctx, appId, id);
  if (!job) return notFound(ctx);
  if (cancelJob(job, ctx.state.clock.now()) === "already_done") {
    return sendJson(ctx.res, 400, { status: "ALREADY_COMPLETED" });
  }
  sendJson(ctx.res, 202, { status: "CANCELLATION_REQUESTED" });
}

/** fal names the request in an `x-fal-request-id` header, where the official client reads `requestId` from. */
function result(ctx: RouteContext, appId: string, id: string) {
  const job = visibleJob(ctx, appId, id);
  if (!job) return notFound(ctx);
  const answer = falResultAnswer(ctx, job);
  sendJson(ctx.res, answer.code, answer.body, { ...answer.headers, "x-fal-request-id": job.id });
}

/** Demo traffic only. A hang or reset fault still creates the job: the accepted-but-lost case. */
async function create(ctx: RouteContext, fault: Fault | undefined, model: string) {
  if (fault?.type === "http_error" || fault?.type === "rate_limit") {
    await applyFault(fault, ctx);
    return;
  }
  const input = (await readJson(ctx.req).catch(() => undefined)) ?? {};
  const job = ctx.state.createJob({ provider: "fal", model, input });
  const webhook = ctx.url.searchParams.get("fal_webhook");
  if (webhook) {
    ctx.state.webhooks.schedule(job, webhook, ctx.state.clock.now(), () => {
      const answer = falResultAnswer(ctx, job);
      const ok = answer.code === 200;
      const detail = (answer.body as { detail?: string }).detail;
      return {
        request_id: job.id,
        gateway_request_id: job.id,
        status: ok ? "OK" : "ERROR",
        payload: ok ? answer.body : { detail },
        ...(ok ? {} : { error: detail ?? "error" }),
      };
    });
  }
  if ((await applyFault(fault, ctx)) === "handled") return;
  sendJson(ctx.res, 200, { request_id: job.id, ...urlsOf(ctx, job), queue_position: 0 });
}

function requestsByEndpoint(ctx: RouteContext) {
  const params = ctx.url.searchParams;
  const endpoint = params.get("endpoint_id");
  if (!endpoint) return sendJson(ctx.res, 422, { detail: "endpoint_id is required" });
  const now = ctx.state.clock.now();
  const start = parseTime(params.get("start"), now - 24 * 60 * 60 * 1000);
  const end = parseTime(params.get("end"), now);
  const limit = Math.min(100, Math.max(1, Number(params.get("limit") ?? 50) || 50));
  const withPayloads = (params.get("expand") ?? "").split(",").includes("payloads");
  const matching = [...ctx.state.jobs.values()]
    .filter((job) => job.provider === "fal" && job.model === endpoint && phaseOf(job, now) !== "hidden")
    .filter((job) => job.createdAt >= start && job.createdAt < end)
    .sort((x, y) => y.createdAt - x.createdAt);
  const page = decodeCursor(params.get("cursor"));
  const items = matching.slice(page * limit, (page + 1) * limit).map((job) => {
    const phase = phaseOf(job, now);
    const done = phase === "done";
    const code = job.outcome === "succeeded" ? 200 : job.outcome === "canceled" ? 499 : 500;
    return {
      request_id: job.id,
      endpoint_id: job.model,
      sent_at: iso(job.createdAt),
      started_at: phase === "queued" ? null : iso(startedAt(job)),
      ended_at: done ? iso(completedAt(job)) : null,
      status_code: done ? code : null,
      duration: done ? job.runningMs / 1000 : null,
      ...(withPayloads ? { json_input: job.input } : {}),
    };
  });
  const hasMore = (page + 1) * limit < matching.length;
  sendJson(ctx.res, 200, { items, next_cursor: hasMore ? encodeCursor(page + 1) : null, has_more: hasMore });
}
