import type { IncomingMessage, ServerResponse } from "node:http";
import { toErrorBody } from "@/lib/errors";
import { sendReply } from "./node-bridge";
import { MALFORMED_URL_PAGE, REFUSAL_PAGE_POLICY } from "./refusal-pages";
import securityHeaders from "./security-headers.json";

/**
 * True when a segment of the URL's path has a percent-escape that does not decode: `%` without two
 * hex digits, or escapes of bytes that are not UTF-8 (`%FF`, an encoded surrogate `%ED%A0%80`, an
 * overlong form). Next.js cannot decode such a path into its route's parameters and answers a
 * plain-text 500; no page or route can be meant by it, so the entry answers it itself.
 */
export function hasMalformedEscape(url: string | undefined): boolean {
  const pathname = (url ?? "").split("?", 1)[0] ?? "";
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
 * Answers a path with a malformed escape with a 400: the API's typed error
 * (`invalid_request`, the documented `{ error: { code, message } }`) under `/api/`, a plain page
 * anywhere else. Nothing behind the entry runs, so nothing is read or written.
 */
export function answerMalformedUrl(req: IncomingMessage, res: ServerResponse): void {
  const pathname = (req.url ?? "").split("?", 1)[0] ?? "";
  if (pathname.startsWith("/api/")) {
    const { status, body } = toErrorBody(new URIError("malformed escape"));
    sendReply(res, { status, body: JSON.stringify(body), contentType: "application/json" }, securityHeaders);
    return;
  }
  sendReply(
    res,
    {
      status: 400,
      body: MALFORMED_URL_PAGE,
      contentType: "text/html; charset=utf-8",
      headers: { "content-security-policy": REFUSAL_PAGE_POLICY },
    },
    securityHeaders,
  );
}
