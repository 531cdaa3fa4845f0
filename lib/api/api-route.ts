import type { z } from "zod";
import { CROSS_SITE_MESSAGE, isCrossSite } from "@/lib/auth/cross-site";
import { db } from "@/lib/db/client";
import type { Principal } from "@/lib/domain/principal";
import { env } from "@/lib/env";
import { AppError, toErrorBody } from "@/lib/errors";
import { logger } from "@/lib/log/logger";
import { consumeRateLimit, type RateLimitResult } from "@/lib/services/access/consume-rate-limit";
import { rateLimitKey } from "@/lib/services/access/rate-limit-key";
import { containsUnstorable, UNSTORABLE_MESSAGE } from "@/lib/validation/nul";
import { parseInput } from "@/lib/validation/parse-input";
import { zodIssues } from "@/lib/validation/zod-issues";
import { type ApiReply, type ApiRequest, fromFetchRequest, JSON_TYPE, replyResponse } from "./api-request";
import { type Audience, authenticateRequest } from "./authenticate-request";
import { PROVIDER_WEBHOOK_MAX_BYTES, parseJsonBody, readJsonBody, readJsonText } from "./read-json-body";
import { admitWebhook, countsAgainstAddress, countWebhookRefusal } from "./webhook-throttle";

export type Method = "GET" | "POST" | "PUT";

/** A route file's exported method, as Next.js calls it. */
export type RouteHandler = (req: Request, context: { params: Promise<unknown> }) => Promise<Response>;

type Input<B, P, Q> = {
  actor: Principal;
  body: B;
  params: P;
  query: Q;
  /** A request header, for the few routes that read one beyond authentication (a file's `Range`). */
  header: (name: string) => string | null;
};

/** A success answered as a file rather than JSON (the finance export's CSV, a delivered video). */
type FileReply<R> = {
  /** The usual type; a reply naming its own (a stored file's) wins. */
  contentType: string;
  reply: (result: R) => { body: ApiReply["body"]; headers: Record<string, string>; contentType?: string };
};

/** How a route is declared, once, in the route table (lib/api/routes.ts). */
export type RouteSpec<M extends Method, Path extends string, B, P, Q, R> = {
  method: M;
  /** With `{name}` for a path segment, as OpenAPI spells it (Next's folder is `[name]`). */
  path: Path;
  audience: Audience;
  summary: string;
  /**
   * Served by the HTTP entry itself, without Next's router: the bearer-token routes programs call
   * in bursts (docs/decisions/009-direct-api-routes.md).
   */
  direct?: boolean;
  /**
   * A GET that writes (an evidence export's audit rows): refused with `403 cross_site_refused` when
   * a browser says it came from another site (`Sec-Fetch-Site: cross-site`), before anything else
   * runs, so no link elsewhere can make a signed-in user's browser do it. Every GET that writes
   * carries it (tests/integration/get-routes-write.test.ts).
   */
  refuseCrossSite?: boolean;
  /**
   * For `provider` routes, the only authentication: checks the provider's signature over the raw
   * body (before anything parses it) and names the provider and its event; throws when it fails.
   */
  signature?: (req: ApiRequest, rawBody: string) => Promise<Principal>;
  body?: z.ZodType<B>;
  params?: z.ZodType<P>;
  query?: z.ZodType<Q>;
  /** Success statuses, the first being the usual one; `status` picks among them per result. */
  success: number[];
  /** Error statuses beyond the common ones, e.g. 503 when a provider must be asked first. */
  errors?: number[];
  status?: (result: R) => number;
  file?: FileReply<R>;
  handler: (input: Input<B, P, Q>) => Promise<R>;
};

/**
 * A declared route, ready for both transports: `handle` is what its route file exports to
 * Next.js, `serve` is the same route on any `ApiRequest` (the HTTP entry's direct routes).
 */
export type ApiRoute<M extends Method = Method, Path extends string = string> = {
  method: M;
  path: Path;
  audience: Audience;
  summary: string;
  direct: boolean;
  refuseCrossSite: boolean;
  body?: z.ZodType;
  params?: z.ZodType;
  query?: z.ZodType;
  success: number[];
  errors: number[];
  /** The success body's type, for the OpenAPI document. */
  responseType: string;
  serve: (req: ApiRequest, params: unknown) => Promise<ApiReply>;
  handle: RouteHandler;
};

/**
 * Every JSON route goes through here: authenticate, rate-limit per principal, parse params and
 * body with zod, call one service, and map any failure to `{ error: { code, message, issues? } }`.
 * Unknown exceptions are logged on the server and answered with a generic 500.
 */
export function apiRoute<
  M extends Method,
  Path extends string,
  B = undefined,
  P = Record<string, never>,
  Q = undefined,
  R = unknown,
>(spec: RouteSpec<M, Path, B, P, Q, R>): ApiRoute<M, Path> {
  const serve = async (req: ApiRequest, rawParams: unknown): Promise<ApiReply> => {
    try {
      if (spec.refuseCrossSite && isCrossSite(req.header("sec-fetch-site"))) {
        throw new AppError("cross_site_refused", CROSS_SITE_MESSAGE);
      }
      const { actor, body } = spec.audience === "provider" ? await signed(req) : await authenticated(req);
      const params = await parseParams(spec.params, rawParams);
      const query = parseQuery(spec.query, req.url);
      const result = await spec.handler({ actor, body, params, query, header: (name) => req.header(name) });
      const status = spec.status ? spec.status(result) : (spec.success[0] ?? 200);
      if (spec.file) return { status, contentType: spec.file.contentType, ...spec.file.reply(result) };
      // Serialised here, so a result JSON cannot carry is a typed 500 like any other failure.
      return { status, body: JSON.stringify(result ?? null), contentType: JSON_TYPE };
    } catch (error) {
      return errorReply(error);
    }
  };
  // A bearer token or session, counted against its principal's rate, then the body.
  const authenticated = async (req: ApiRequest) => {
    const window = rateWindow();
    const { actor, rateLimit } = await authenticateRequest(req, spec.audience as Exclude<Audience, "provider">, window);
    enforceRateLimit(rateLimit ?? (await consumeRateLimit(db(), rateLimitKey(actor), window.limit, WINDOW)));
    return { actor, body: (spec.body ? await readJsonBody(req, spec.body) : undefined) as B };
  };
  // A provider's webhook: its address admitted, the raw body read (byte-limited) and its signature
  // checked before it is parsed; a refusal counts against the address (webhook-throttle.ts).
  const signed = async (req: ApiRequest) => {
    const verify = spec.signature;
    if (!verify) throw new AppError("internal", "A provider route needs a signature check.");
    const address = admitWebhook(req);
    let verified: { text: string; actor: Principal };
    try {
      const text = await readJsonText(req, PROVIDER_WEBHOOK_MAX_BYTES);
      verified = { text, actor: await verify(req, text) };
    } catch (error) {
      if (countsAgainstAddress(error)) countWebhookRefusal(address);
      throw error;
    }
    const { text, actor } = verified;
    return { actor, body: (spec.body ? parseJsonBody(text, spec.body, "replace") : undefined) as B };
  };
  const handle: RouteHandler = async (req, context) =>
    replyResponse(await serve(fromFetchRequest(req), await context.params));
  return {
    method: spec.method,
    path: spec.path,
    audience: spec.audience,
    summary: spec.summary,
    direct: spec.direct ?? false,
    refuseCrossSite: spec.refuseCrossSite ?? false,
    ...(spec.body ? { body: spec.body } : {}),
    ...(spec.params ? { params: spec.params } : {}),
    ...(spec.query ? { query: spec.query } : {}),
    success: spec.success,
    errors: spec.errors ?? [],
    responseType: spec.file?.contentType ?? JSON_TYPE,
    serve,
    handle,
  };
}

export function errorReply(error: unknown): ApiReply {
  const { status, body, retryAfterSeconds } = toErrorBody(error);
  if (status >= 500) logger("api").error({ error: String(error) }, "request failed");
  return {
    status,
    body: JSON.stringify(body),
    contentType: JSON_TYPE,
    ...(retryAfterSeconds ? { headers: { "Retry-After": String(retryAfterSeconds) } } : {}),
  };
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
  return parseInput(schema, raw, "The query does not match the schema.");
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
