import { billedJobs } from "./costs";
import { type RouteContext, sendJson } from "./respond";
import { decodeCursor, encodeCursor, parseTime } from "./routes";
import { billingEvent } from "./usage-export";

/**
 * fal's Platform API `GET /v1/models/billing-events` (Admin key): one event per billed request,
 * newest first, filtered by time (`start`, `end` exclusive), `endpoint_id` and `request_id` (comma
 * separated or repeated), paginated by `limit` and `cursor`, as fal documents it.
 */
export function billingEvents(ctx: RouteContext) {
  const params = ctx.url.searchParams;
  const listed = (name: string) =>
    params
      .getAll(name)
      .flatMap((value) => value.split(","))
      .filter(Boolean);
  const endpoints = listed("endpoint_id");
  const requests = listed("request_id");
  const now = ctx.state.clock.now();
  const start = parseTime(params.get("start"), now - 24 * 60 * 60 * 1000);
  const end = parseTime(params.get("end"), now);
  const limit = Math.min(100, Math.max(1, Number(params.get("limit") ?? 50) || 50));
  const events = billedJobs(ctx.state.jobs.values(), ctx.state.prices, "fal", now)
    .map((job) => billingEvent(ctx.state, job))
    .filter(
      (event) => requests.length > 0 || (Date.parse(event.timestamp) >= start && Date.parse(event.timestamp) < end),
    )
    .filter((event) => endpoints.length === 0 || endpoints.includes(event.endpoint_id))
    .filter((event) => requests.length === 0 || requests.includes(event.request_id))
    .reverse();
  const page = decodeCursor(params.get("cursor"));
  const hasMore = (page + 1) * limit < events.length;
  sendJson(ctx.res, 200, {
    billing_events: events.slice(page * limit, (page + 1) * limit),
    next_cursor: hasMore ? encodeCursor(page + 1) : null,
    has_more: hasMore,
  });
}
