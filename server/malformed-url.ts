import type { IncomingMessage, ServerResponse } from "node:http";
import { type ApiReply, JSON_TYPE } from "@/lib/api/api-request";
import { toErrorBody } from "@/lib/errors";
import { sendReply } from "./node-bridge";
import { MALFORMED_URL_PAGE, REFUSAL_PAGE_POLICY } from "./refusal-pages";
import securityHeaders from "./security-headers.json";

/** The path of a request target: an origin-form path, or an absolute URL's path, without its query. */
function pathOf(url: string | undefined): string {
  const target = (url ?? "").split("?", 1)[0] ?? "";
  return target.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, "");
}

/**
 * True when a segment of the URL's path has a percent-escape that does not decode: `%` without two
 * hex digits, or escapes of bytes that are not UTF-8 (`%FF`, an encoded surrogate `%ED%A0%80`, an
 * overlong form). Next.js cannot decode such a path into its route's parameters and answers a
 * plain-text 500; no page or route can be meant by it, so the entry answers it itself.
 */
export function hasMalformedEscape(url: string | undefined): boolean {
  const pathname = pathOf(url);
  if (!pathname.includes("%")) return false;
  for (const segment of pathname.split("/")) {
    try {
      decodeURIComponent(segment);
    } catch {
      return true;
    }
  }
  return false;
}

/**
 * The answer to a path with a malformed escape, or null when every escape decodes: a 400, the API's
 * typed error (`invalid_request`, the documented `{ error: { code, message } }`) under `/api/`, a
 * plain page anywhere else. Nothing behind the entry runs, so nothing is read or written.
 */
export function malformedUrlReply(url: string | undefined): ApiReply | null {
  if (!hasMalformedEscape(url)) return null;
  const pathname = pathOf(url);
  if (pathname.startsWith("/api/")) {
    const { status, body } = toErrorBody(new URIError("malformed escape"));
    return { status, body: JSON.stringify(body), contentType: JSON_TYPE };
  }
  return {
    status: 400,
    body: MALFORMED_URL_PAGE,
    contentType: "text/html; charset=utf-8",
    headers: { "content-security-policy": REFUSAL_PAGE_POLICY },
  };
}

/** Answers the request when its path has a malformed escape; false leaves it to the routes. */
export function answerMalformedUrl(req: IncomingMessage, res: ServerResponse): boolean {
  const reply = malformedUrlReply(req.url);
  if (!reply) return false;
  sendReply(res, reply, securityHeaders);
  return true;
}
