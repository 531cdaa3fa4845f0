import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";

/** A Node request as the Fetch `Request` a route handler takes; the body streams, unread. */
export function toFetchRequest(req: IncomingMessage): Request {
  const headers = new Headers();
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    headers.append(req.rawHeaders[i] as string, req.rawHeaders[i + 1] as string);
  }
  const method = req.method ?? "GET";
  const hasBody = method !== "GET" && method !== "HEAD";
  return new Request(new URL(req.url ?? "/", "http://localhost"), {
    method,
    headers,
    ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream, duplex: "half" } : {}),
  } as RequestInit);
}

/** Writes a handler's `Response` (small JSON bodies here, so buffered) with extra headers. */
export async function sendFetchResponse(
  res: ServerResponse,
  response: Response,
  extraHeaders: readonly { key: string; value: string }[],
): Promise<void> {
  const body = Buffer.from(await response.arrayBuffer());
  res.statusCode = response.status;
  for (const { key, value } of extraHeaders) res.setHeader(key, value);
  response.headers.forEach((value, key) => {
    if (key !== "set-cookie") res.setHeader(key, value);
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) res.setHeader("set-cookie", cookies);
  res.setHeader("content-length", body.length);
  res.end(body);
}
