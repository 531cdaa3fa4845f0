import { randomUUID } from "node:crypto";
import type { Fault } from "./faults";
import { phaseOf, type SimJob } from "./jobs";
import { applyFault, type RouteContext, readJson, sendJson } from "./respond";
import { iso, outputUrlOf, type RouteMatch, type SimulatorProvider } from "./routes";

/** Luma generation IDs are UUIDs. */
export const lumaSimulator: SimulatorProvider = {
  name: "luma",
  routes: { luma: (method, parts) => lumaRoute(method, parts) },
  classify: (parts) =>
    parts[3] === "generations" && parts.length === 5 ? { call: "status", jobId: parts[4] } : undefined,
  cdnDelivery: true,
  defaultModel: "ray-2",
  newJobId: () => randomUUID(),
};

/**
 * Routes under /luma that mirror api.lumalabs.ai: `GET /dream-machine/v1/generations/{id}`, the list
 * `GET /dream-machine/v1/generations?limit&offset` (newest first here; Luma documents no order, so
 * the adapter must not rely on one), `DELETE /dream-machine/v1/generations/{id}` and the creates. A job hidden by `notFoundForMs` is missing from
 * the list too: the lagging list of a freshly accepted generation.
 */
export function lumaRoute(method: string, parts: string[]): RouteMatch | undefined {
  const [root, v1, kind, id, extra] = parts;
  if (root !== "dream-machine" || v1 !== "v1" || kind !== "generations") return undefined;
  const provider = "luma" as const;
  if (parts.length === 3 && method === "GET") return { provider, route: "list", handle: list };
  const createPath = parts.length === 3 || (parts.length === 4 && id === "video");
  if (createPath && method === "POST") return { provider, route: "create", handle: create };
  if (parts.length === 4 && method === "GET" && id && !extra) {
    return { provider, route: "status", jobId: id, handle: (ctx) => get(ctx, id) };
  }
  if (parts.length === 4 && method === "DELETE" && id && id !== "video") {
    return { provider, route: "cancel", jobId: id, handle: (ctx) => remove(ctx, id) };
  }
  return undefined;
}

/** The Generation object (lib/providers/luma/recorded.ts) at the job's current phase. */
export function generationJson(job: SimJob, ctx: Pick<RouteContext, "state" | "origin">) {
  const phase = phaseOf(job, ctx.state.clock.now());
  // `request` is Luma's copy of what was sent, which the reconciliation search fingerprints.
  const base = {
    id: job.id,
    generation_type: "video",
    created_at: iso(job.createdAt),
    model: job.model,
    request: job.input,
  };
  if (phase === "queued" || phase === "hidden") return { ...base, state: "queued", failure_reason: null, assets: null };
  if (phase === "running") return { ...base, state: "dreaming", failure_reason: null, assets: null };
  if (job.outcome === "succeeded") {
    const assets = { video: outputUrlOf(ctx, job) };
    return { ...base, state: "completed", failure_reason: null, assets };
  }
  // Luma documents no cancelled state: a cancelled simulated job reads as failed.
  return { ...base, state: "failed", failure_reason: job.error, assets: null };
}

function get(ctx: RouteContext, id: string) {
  const job = ctx.state.find("luma", id);
  if (!job || phaseOf(job, ctx.state.clock.now()) === "hidden") {
    return sendJson(ctx.res, 404, { detail: "Generation not found" });
  }
  sendJson(ctx.res, 200, generationJson(job, ctx));
}

/** Luma deletes the generation whatever its state (204); it answers 404 from then on. */
function remove(ctx: RouteContext, id: string) {
  const job = ctx.state.find("luma", id);
  if (!job || phaseOf(job, ctx.state.clock.now()) === "hidden") {
    return sendJson(ctx.res, 404, { detail: "Generation not found" });
  }
  job.deleted = true;
  ctx.res.writeHead(204);
  ctx.res.end();
}

/** `limit` is honoured up to the simulator's page size, as a server may clamp it. */
function list(ctx: RouteContext) {
  const now = ctx.state.clock.now();
  const limit = Math.min(count(ctx.url.searchParams.get("limit"), 10), ctx.state.listPageSize);
  const offset = count(ctx.url.searchParams.get("offset"), 0);
  const visible = [...ctx.state.jobs.values()]
    .filter((job) => job.provider === "luma" && phaseOf(job, now) !== "hidden")
    .sort((x, y) => y.createdAt - x.createdAt);
  const generations = visible.slice(offset, offset + limit).map((job) => generationJson(job, ctx));
  sendJson(ctx.res, 200, {
    generations,
    count: generations.length,
    has_more: offset + limit < visible.length,
    limit,
    offset,
  });
}

function count(raw: string | null, fallback: number): number {
  const value = Number(raw ?? "");
  return raw !== null && Number.isInteger(value) && value >= 0 ? value : fallback;
}

/** Demo traffic only. A hang or reset fault still creates the generation: the accepted-but-lost case. */
async function create(ctx: RouteContext, fault: Fault | undefined) {
  if (fault?.type === "http_error" || fault?.type === "rate_limit") {
    await applyFault(fault, ctx);
    return;
  }
  const body = await readJson(ctx.req).catch(() => undefined);
  const record = typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {};
  const model = typeof record.model === "string" ? record.model : "ray-2";
  const job = ctx.state.createJob({ provider: "luma", model, input: record });
  if ((await applyFault(fault, ctx)) === "handled") return;
  sendJson(ctx.res, 201, generationJson(job, ctx));
}
