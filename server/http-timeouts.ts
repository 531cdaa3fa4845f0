import type { Server } from "node:http";
import type { Env } from "@/lib/env";

/** An idle kept-alive connection is closed after this long: long enough to reuse, short enough not to hoard sockets. */
const KEEP_ALIVE_TIMEOUT_MS = 5_000;

/**
 * Bounds how long a client may take to send a request, so a trickling client cannot hold a
 * connection (and a body reader) for minutes. Only receiving is bounded: a response that takes
 * long (a worker tick works up to its budget) is not cut. Node checks these limits every
 * `connectionsCheckingInterval`, so that is kept well under the shorter limit; it is read when
 * the server starts listening, which is why this is applied before `listen`.
 */
export function applyHttpTimeouts<S extends Server>(
  server: S,
  env: Pick<Env, "HTTP_HEADERS_TIMEOUT_MS" | "HTTP_REQUEST_TIMEOUT_MS">,
): S {
  const headers = env.HTTP_HEADERS_TIMEOUT_MS;
  // Node refuses a request timeout shorter than the headers timeout; the larger of the two wins.
  const request = Math.max(env.HTTP_REQUEST_TIMEOUT_MS, headers);
  server.headersTimeout = headers;
  server.requestTimeout = request;
  server.keepAliveTimeout = Math.min(KEEP_ALIVE_TIMEOUT_MS, headers);
  // A createServer option without a typed property; Node reads the property when listening starts.
  (server as S & { connectionsCheckingInterval: number }).connectionsCheckingInterval = Math.max(
    50,
    Math.min(1_000, Math.floor(headers / 4)),
  );
  return server;
}
