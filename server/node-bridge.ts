import type { IncomingMessage, ServerResponse } from "node:http";
import type { ApiReply, ApiRequest } from "@/lib/api/api-request";

/**
 * A Node request as an `ApiRequest`, with no Fetch objects in between: a `Request`, its body
 * stream and a `Response` read back were a large share of the server's CPU per registration
 * (docs/performance.md §4).
 * The body is read only when the route asks, after it has authenticated.
 */
export function fromNodeRequest(req: IncomingMessage): ApiRequest {
  return {
    method: req.method ?? "GET",
    url: req.url ?? "/",
    header: (name) => {
      const value = req.headers[name.toLowerCase()];
      return Array.isArray(value) ? value.join(", ") : (value ?? null);
    },
    readBody: (limit) => readNodeBody(req, limit),
  };
}

function readNodeBody(req: IncomingMessage, limit: number): Promise<Uint8Array | "too_large"> {
  // Gone while the route authenticated: its stream will emit nothing more.
  if (req.destroyed) return Promise.reject(new Error("the request was aborted"));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (result: Uint8Array | "too_large" | Error) => {
      req.off("data", onData).off("end", onEnd).off("error", done).off("close", onClose);
      if (result instanceof Error) reject(result);
      else resolve(result);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size <= limit) chunks.push(chunk);
      else {
        // Stop reading; the answer closes the connection rather than draining the rest.
        req.pause();
        done("too_large");
      }
    };
    const onEnd = () => done(Buffer.concat(chunks));
    // A client gone before the body's end: nobody is left to answer.
    const onClose = () => done(new Error("the request was aborted"));
    req.on("data", onData).on("end", onEnd).on("error", done).on("close", onClose);
  });
}

/** Writes a route's reply as JSON, with the headers every response of the app carries. */
export function sendReply(
  res: ServerResponse,
  reply: ApiReply,
  extraHeaders: readonly { key: string; value: string }[],
  options: { close?: boolean } = {},
): void {
  const body = Buffer.from(reply.json);
  res.statusCode = reply.status;
  for (const { key, value } of extraHeaders) res.setHeader(key, value);
  res.setHeader("content-type", "application/json");
  if (reply.retryAfterSeconds) res.setHeader("retry-after", String(reply.retryAfterSeconds));
  if (options.close) res.setHeader("connection", "close");
  res.setHeader("content-length", body.length);
  res.end(body);
}
