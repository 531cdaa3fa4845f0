import { type NextRequest, NextResponse } from "next/server";
import { isCrossSite, writingPage } from "./lib/auth/cross-site";
import { crossSiteRefusalPage, REFUSAL_PAGE_POLICY } from "./server/refusal-pages";
import { contentSecurityPolicy, newNonce } from "./server/security-policy";

/**
 * A fresh nonce for every page response, in the policy the browser gets and in the request Next.js
 * renders from: Next reads the nonce out of the request's Content-Security-Policy header and puts
 * it on every script (and inline style) it emits. That is why every page renders per request
 * (the root layout is dynamic): a page built ahead of time would carry no nonce and run nothing.
 */
export function proxy(request: NextRequest) {
  // A printable evidence page opened from another site: refused before it
  // renders (lib/auth/cross-site.ts); the page checks again itself.
  const writing = isCrossSite(request.headers.get("sec-fetch-site"))
    ? writingPage(request.nextUrl.pathname, request.nextUrl.search)
    : null;
  if (writing) {
    return new NextResponse(crossSiteRefusalPage(writing.back), {
      status: 403,
      headers: { "content-type": "text/html; charset=utf-8", "content-security-policy": REFUSAL_PAGE_POLICY },
    });
  }
  const policy = contentSecurityPolicy({ nonce: newNonce(), dev: process.env.NODE_ENV === "development" });
  const headers = new Headers(request.headers);
  headers.set("content-security-policy", policy);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set("content-security-policy", policy);
  return response;
}

export const config = {
  matcher: [
    {
      // Pages and server actions; not JSON routes (the direct ones never reach Next.js at all),
      // not built assets, and not prefetches, whose payloads carry no script tags.
      source: "/((?!api/|_next/static/|_next/image|favicon.ico).*)",
      missing: [
        { type: "header", key: "next-router-prefetch" },
        { type: "header", key: "purpose", value: "prefetch" },
      ],
    },
  ],
};
