import { randomUUID } from "node:crypto";
import { costOf, estimateOf } from "./costs";
import type { Fault } from "./faults";
import { cancelJob, phaseOf, type SimJob, startedAt } from "./jobs";
import { applyFault, type RouteContext, readJson, sendJson } from "./respond";
import { iso, outputUrlOf, type RouteMatch, type SimulatorProvider } from "./routes";

/** The video creates of Runway's API (demo traffic; the recovery path must never reach them). */
const CREATE_KINDS = new Set(["text_to_video", "image_to_video", "video_to_video"]);

/** Runway task IDs are UUIDs. */
export const runwaySimulator: SimulatorProvider = {
  name: "runway",
  routes: { runway: (method, parts) => runwayRoute(method, parts) },
  classify: (parts) => (parts[2] === "tasks" && parts.length === 4 ? { call: "status", jobId: parts[3] } : undefined),
  cdnDelivery: true,
  defaultModel: "gen4_turbo",
  newJobId: () => randomUUID(),
};

/**
 * Routes under /runway that mirror api.dev.runwayml.com: `GET /v1/tasks/{id}`, `DELETE /v1/tasks/{id}`
 * (cancels an unfinished task, deletes a finished one) and the creates. Runway
 * has no task list, so there is no list route to fault. Every call must name an API version, as
 * Runway requires (`X-Runway-Version`); a call without one is refused, so an adapter that forgets it
 * fails here first.
 */
export function runwayRoute(method: string, parts: string[]): RouteMatch | undefined {
  const [v1, kind, id] = parts;
  if (v1 !== "v1" || !kind) return undefined;
  const provider = "runway" as const;
  if (kind === "tasks" && parts.length === 3 && method === "GET" && id) {
    return { provider, route: "status", jobId: id, handle: (ctx) => (versioned(ctx) ? get(ctx, id) : undefined) };
  }
  if (kind === "tasks" && parts.length === 3 && method === "DELETE" && id) {
    return { provider, route: "cancel", jobId: id, handle: (ctx) => (versioned(ctx) ? remove(ctx, id) : undefined) };
  }
  if (CREATE_KINDS.has(kind) && parts.length === 2 && method === "POST") {
    return { provider, route: "create", handle: (ctx, fault) => (versioned(ctx) ? create(ctx, fault) : undefined) };
  }
  return undefined;
}

function versioned(ctx: RouteContext): boolean {
  if (ctx.req.headers["x-runway-version"]) return true;
  sendJson(ctx.res, 400, { error: "The X-Runway-Version header is required." });
  return false;
}

/** Runway bills in credits of $0.01 (10,000 micro-dollars): the price table's charge in credits (./costs.ts). */
const credits = (micros: number) => micros / 10_000;

/**
 * The task object of API version 2024-11-06 (lib/providers/runway/recorded.ts), one shape per status,
 * with the `estimatedCost` of an unfinished task and the final `cost` of a finished one (a failed
 * or cancelled task is refunded: 0), as @runwayml/sdk's `TaskRetrieveResponse` types them.
 */
export function taskJson(job: SimJob, ctx: Pick<RouteContext, "state" | "origin">) {
  const now = ctx.state.clock.now();
  const phase = phaseOf(job, now);
  const base = { id: job.id, createdAt: iso(job.createdAt) };
  const estimatedCost = { credits: credits(estimateOf(ctx.state.prices, job)) };
  if (phase === "queued") return { ...base, status: job.throttled ? "THROTTLED" : "PENDING", estimatedCost };
  if (phase === "running") {
    const progress = job.runningMs > 0 ? Math.min(0.99, (now - startedAt(job)) / job.runningMs) : 0;
    return { ...base, status: "RUNNING", progress: Math.round(progress * 100) / 100, estimatedCost };
  }
  if (job.outcome === "succeeded") {
    const output = [outputUrlOf(ctx, job)];
    return { ...base, status: "SUCCEEDED", output, cost: { credits: credits(costOf(ctx.state.prices, job)) } };
  }
  if (job.outcome === "canceled") return { ...base, status: "CANCELLED", cost: { credits: 0 } };
  return { ...base, status: "FAILED", failure: job.error, failureCode: "INTERNAL.BAD_OUTPUT", cost: { credits: 0 } };
}

/** 204 either way: an unfinished task is cancelled (and reads CANCELLED), a finished one is deleted (404 after). */
function remove(ctx: RouteContext, id: string) {
  const job = ctx.state.find("runway", id);
  const now = ctx.state.clock.now();
  if (!job || phaseOf(job, now) === "hidden") return sendJson(ctx.res, 404, { error: "Not found" });
  if (cancelJob(job, now) === "already_done") job.deleted = true;
  ctx.res.writeHead(204);
  ctx.res.end();
}

function get(ctx: RouteContext, id: string) {
  const job = ctx.state.find("runway", id);
  if (!job || phaseOf(job, ctx.state.clock.now()) === "hidden") return sendJson(ctx.res, 404, { error: "Not found" });
  sendJson(ctx.res, 200, taskJson(job, ctx));
}

/** Demo traffic only. A hang or reset fault still creates the task: the accepted-but-lost case. */
async function create(ctx: RouteContext, fault: Fault | undefined) {
  if (fault?.type === "http_error" || fault?.type === "rate_limit") {
    await applyFault(fault, ctx);
    return;
  }
  const body = await readJson(ctx.req).catch(() => undefined);
  const record = typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {};
  if (typeof record.model !== "string" || record.model === "") {
    return sendJson(ctx.res, 400, { error: "model is required" });
  }
  const { model, ...input } = record;
  const job = ctx.state.createJob({ provider: "runway", model, input });
  if ((await applyFault(fault, ctx)) === "handled") return;
  sendJson(ctx.res, 200, { id: job.id });
}
