import type { z } from "zod";
import { db } from "@/lib/db/client";
import type { Principal } from "@/lib/domain/principal";
import { env } from "@/lib/env";
import { AppError, toErrorBody } from "@/lib/errors";
import { logger } from "@/lib/log/logger";
import { consumeRateLimit, type RateLimitResult } from "@/lib/services/consume-rate-limit";
import { rateLimitKey } from "@/lib/services/rate-limit-key";
import { containsUnstorable, UNSTORABLE_MESSAGE } from "@/lib/validation/nul";
import { zodIssues } from "@/lib/validation/zod-issues";
import { type ApiReply, type ApiRequest, fromFetchRequest, replyResponse } from "./api-request";
import { type Audience, authenticateRequest } from "./authenticate-request";
import { readJsonBody } from "./read-json-body";

type Handler<B, P, Q> = (input: { actor: Principal; body: B; params: P; query: Q }) => Promise<unknown>;

/** A route file's exported method, as Next.js calls it. */
export type RouteHandler = (req: Request, context: { params: Promise<unknown> }) => Promise<Response>;
/**
 * What `apiRoute` makes: a route handler that says who may call it, and the same route on any
 * `ApiRequest` (the HTTP entry serves bearer-only routes with it, without Next.js or Fetch objects).
 */
export type ApiRouteHandler = RouteHandler & {
  audience: Audience;
  serve: (req: ApiRequest, params: unknown) => Promise<ApiReply>;
};

/**
 * Every JSON route goes through here: authenticate, rate-limit per principal, parse params and
 * body with zod, call one service, and map any failure to `{ error: { code, message, issues? } }`.
 * Unknown exceptions are logged on the server and answered with a generic 500.
 */
export function apiRoute<B = undefined, P = Record<string, never>, Q = undefined>(options: {
  audience: Audience;
  body?: z.ZodType<B>;
  params?: z.ZodType<P>;
  query?: z.ZodType<Q>;
  status?: number | ((result: unknown) => number);
  handler: Handler<B, P, Q>;
}): ApiRouteHandler {
  const serve = async (req: ApiRequest, rawParams: unknown): Promise<ApiReply> => {
    try {
      const window = rateWindow();
      const { actor, rateLimit } = await authenticateRequest(req, options.audience, window);
      enforceRateLimit(rateLimit ?? (await consumeRateLimit(db(), rateLimitKey(actor), window.limit, WINDOW)));
      const params = await parseParams(options.params, rawParams);
      const query = parseQuery(options.query, req.url);
      const body = (options.body ? await readJsonBody(req, options.body) : undefined) as B;
      const result = await options.handler({ actor, body, params, query });
      const status = typeof options.status === "function" ? options.status(result) : (options.status ?? 200);
      // Serialised here, so a result JSON cannot carry is a typed 500 like any other failure.
      return { status, json: JSON.stringify(result ?? null) };
    } catch (error) {
      return errorReply(error);
    }
  };
  const route: RouteHandler = async (req, context) =>
    replyResponse(await serve(fromFetchRequest(req), await context.params));
  return Object.assign(route, { audience: options.audience, serve });
}

export function errorReply(error: unknown): ApiReply {
  const { status, body, retryAfterSeconds } = toErrorBody(error);
  if (status >= 500) logger("api").error({ error: String(error) }, "request failed");
  return { status, json: JSON.stringify(body), ...(retryAfterSeconds ? { retryAfterSeconds } : {}) };
}

export function errorResponse(error: unknown): Response {
  return replyResponse(errorReply(error));
}

async function parseParams<P>(schema: z.ZodType<P> | undefined, raw: unknown): Promise<P> {
  if (!schema) return {} as P;
  if (containsUnstorable(raw)) throw new AppError("invalid_request", UNSTORABLE_MESSAGE);
  const parsed = schema.safeParse(raw ?? {});
  if (!parsed.success) throw new AppError("not_found", "No such resource.", { issues: zodIssues(parsed.error) });
  return parsed.data;
}

/** `url` is a path with its query, or an absolute URL; it is parsed only for a route that reads a query. */
function parseQuery<Q>(schema: z.ZodType<Q> | undefined, url: string): Q {
  if (!schema) return undefined as Q;
  const raw = Object.fromEntries(new URL(url, "http://localhost").searchParams);
  if (containsUnstorable(raw)) throw new AppError("invalid_request", UNSTORABLE_MESSAGE);
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    throw new AppError("invalid_request", "The query does not match the schema.", { issues: zodIssues(parsed.error) });
  }
  return parsed.data;
}

const WINDOW = 60;
const rateWindow = () => ({ limit: env().API_RATE_LIMIT_PER_MINUTE, windowSeconds: WINDOW });

function enforceRateLimit(limit: RateLimitResult): void {
  if (!limit.allowed) {
    throw new AppError("rate_limited", "Too many requests for this key; slow down.", {
      retryAfterSeconds: limit.retryAfterSeconds,
    });
  }
}
