import type { RouteHandler } from "@/lib/api/api-route";

export type CallOptions = {
  token?: string;
  body?: unknown;
  rawBody?: string;
  contentType?: string;
  params?: Record<string, string>;
  query?: Record<string, string>;
  method?: string;
  headers?: Record<string, string>;
};

/** Calls a route handler exactly as Next would, with a real Request, and returns status + JSON. */
export async function callRoute(handler: RouteHandler, options: CallOptions = {}) {
  const url = new URL("http://localhost/api/test");
  for (const [key, value] of Object.entries(options.query ?? {})) url.searchParams.set(key, value);
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const body = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  if (body !== undefined) headers["content-type"] = options.contentType ?? "application/json";
  const response = await handler(
    new Request(url, { method: options.method ?? (body === undefined ? "GET" : "POST"), headers, body }),
    { params: Promise.resolve(options.params ?? {}) },
  );
  const json = (await response.json()) as Record<string, unknown> & {
    error?: { code: string; message: string; issues?: unknown[] };
  };
  return { status: response.status, json, headers: response.headers };
}
