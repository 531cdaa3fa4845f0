import type { IncomingMessage, ServerResponse } from "node:http";
import type { ApiReply, ApiRequest } from "@/lib/api/api-request";

/**
 * A Node request as an `ApiRequest`, with no Fetch objects in between: a `Request`, its body
 * stream and a `Response` read back were a large share of the server's CPU per registration
 * (docs/performance.md §4).
 * The body is read only when the route asks, after it has authenticated, by the same byte-limited
 * reader as a Fetch body (lib/api/read-json-body.ts).
 */
export function fromNodeRequest(req: IncomingMessage): ApiRequest {
  return {
    method: req.method ?? "GET",
    url: req.url ?? "/",
    header: (name) => {
      const value = req.headers[name.toLowerCase()];
      return Array.isArray(value) ? value.join(", ") : (value ?? null);
    },
    body: () => nodeChunks(req),
  };
}

/**
 * The request's chunks. A reader that stops early leaves the stream paused rather than destroyed
 * (destroying it would take the socket, and the 413 with it); the answer then closes the connection
 * rather than draining the rest.
 */
async function* nodeChunks(req: IncomingMessage): AsyncGenerator<Uint8Array> {
  // Gone while the route authenticated: its stream will emit nothing more.
  if (req.destroyed) throw new Error("the request was aborted");
  try {
    yield* req.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>;
  } catch {
    // A client gone before the body's end: nobody is left to answer.
    throw new Error("the request was aborted");
  }
}

/** Writes a route's reply, with the headers every response of the app carries. */
export function sendReply(
  res: ServerResponse,
  reply: ApiReply,
  extraHeaders: readonly { key: string; value: string }[],
  options: { close?: boolean } = {},
): void {
  // The direct routes answer text only; a file's stream is served through Next's router.
  if (typeof reply.body !== "string") throw new Error("a direct route answered with a stream");
  const body = Buffer.from(reply.body);
  res.statusCode = reply.status;
  for (const { key, value } of extraHeaders) res.setHeader(key, value);
  res.setHeader("content-type", reply.contentType);
  for (const [key, value] of Object.entries(reply.headers ?? {})) res.setHeader(key, value);
  if (options.close) res.setHeader("connection", "close");
  res.setHeader("content-length", body.length);
  res.end(body);
}
