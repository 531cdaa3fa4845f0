// The headers that never change (security-headers.json) are sent by next.config.mjs and by the
// direct routes; these are the ones that depend on the server's configuration or on the request.

export type Header = { key: string; value: string };

/**
 * A year, for this host and its subdomains; no preload, which is a commitment an operator makes
 * for their whole domain, not one the app can make for them.
 */
export const STRICT_TRANSPORT_SECURITY = "max-age=31536000; includeSubDomains";

/**
 * HSTS only when the console's public address is https: sent over plain http it would be ignored
 * at best, and on a host later moved to https it could pin a name the operator never meant to.
 * It depends on AUTH_URL, which is read when the server starts, not when the app is built (one
 * build serves any address), so the HTTP entry adds it rather than next.config.mjs.
 */
export function transportHeaders(authUrl: string): Header[] {
  return new URL(authUrl).protocol === "https:"
    ? [{ key: "Strict-Transport-Security", value: STRICT_TRANSPORT_SECURITY }]
    : [];
}

/** A fresh, unguessable value for one response: 128 random bits, base64 as CSP spells nonces. */
export function newNonce(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64");
}

/**
 * The console's Content-Security-Policy for one page response. Scripts run only when they carry
 * this response's nonce (Next.js puts it on its own tags when it finds it in the request's CSP
 * header) or were loaded by such a script ('strict-dynamic'); styles come from the built CSS
 * files, plus any inline style Next.js marks with the nonce. Everything else is this origin only,
 * and nothing may frame the console, change its base URL, or post a form elsewhere.
 *
 * Development only: React's debugging reads server stacks with eval, and the dev server injects
 * styles as inline tags, so those two are allowed there and nowhere else.
 */
export function contentSecurityPolicy({ nonce, dev }: { nonce: string; dev: boolean }): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${dev ? " 'unsafe-eval'" : ""}`,
    `style-src 'self' ${dev ? "'unsafe-inline'" : `'nonce-${nonce}'`}`,
    "img-src 'self'",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}
