import type { IncomingMessage, ServerResponse } from "node:http";
import { answerMalformedUrl } from "./malformed-url";
import { transportHeaders } from "./security-policy";
import { serveDirect } from "./serve-direct";
import { stampSocketAddress } from "./socket-address";

type Handler = (req: IncomingMessage, res: ServerResponse) => unknown;

/**
 * The HTTP entry's listener. The connection's peer address is stamped over any client copy (the
 * sign-in limits read it); the headers that depend on how the server was started go on every
 * response (Next's pages, routes and assets, and the direct routes alike), computed once here so a
 * request pays a header copy at most; a path whose percent-escapes do not decode is answered 400
 * here (Next.js would answer it a plain-text 500); then the direct routes answer theirs and Next.js
 * the rest.
 */
export function requestListener(next: Handler, authUrl: string): Handler {
  const headers = transportHeaders(authUrl);
  return (req, res) => {
    stampSocketAddress(req);
    for (const { key, value } of headers) res.setHeader(key, value);
    if (!answerMalformedUrl(req, res) && !serveDirect(req, res)) void next(req, res);
  };
}
