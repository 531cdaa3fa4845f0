import { NextRequest } from "next/server";
import { describe, expect, it } from "vitest";
import { config, proxy } from "@/proxy";
import { contentSecurityPolicy, newNonce, STRICT_TRANSPORT_SECURITY, transportHeaders } from "@/server/security-policy";

const directives = (policy: string) => new Map(policy.split("; ").map((d) => [d.split(" ")[0], d.split(" ").slice(1)]));

describe("the security headers", () => {
  it("send HSTS only when the console's address is https", () => {
    expect(transportHeaders("https://console.example.com")).toEqual([
      { key: "Strict-Transport-Security", value: STRICT_TRANSPORT_SECURITY },
    ]);
    expect(transportHeaders("http://localhost:3000")).toEqual([]);
    expect(transportHeaders("http://console.example.com")).toEqual([]);
    expect(STRICT_TRANSPORT_SECURITY).toMatch(/^max-age=\d{8,}/);
  });

  it("allow in production only scripts and inline styles carrying the response's nonce", () => {
    const policy = directives(contentSecurityPolicy({ nonce: "abc=", dev: false }));
    expect(policy.get("script-src")).toEqual(["'self'", "'nonce-abc='", "'strict-dynamic'"]);
    expect(policy.get("style-src")).toEqual(["'self'", "'nonce-abc='"]);
    expect(policy.get("object-src")).toEqual(["'none'"]);
    expect(policy.get("base-uri")).toEqual(["'none'"]);
    expect(policy.get("frame-ancestors")).toEqual(["'none'"]);
    expect(policy.get("form-action")).toEqual(["'self'"]);
    expect(policy.get("connect-src")).toEqual(["'self'"]);
    expect(policy.get("default-src")).toEqual(["'self'"]);
    expect([...policy.values()].flat()).not.toContain("'unsafe-inline'");
    expect([...policy.values()].flat()).not.toContain("'unsafe-eval'");
  });

  it("relax in development only what React's debugging and the dev server's styles need", () => {
    const policy = directives(contentSecurityPolicy({ nonce: "abc=", dev: true }));
    expect(policy.get("script-src")).toEqual(["'self'", "'nonce-abc='", "'strict-dynamic'", "'unsafe-eval'"]);
    expect(policy.get("style-src")).toEqual(["'self'", "'unsafe-inline'"]);
  });

  it("draw a new 128-bit nonce each time", () => {
    const nonces = new Set(Array.from({ length: 100 }, newNonce));
    expect(nonces.size).toBe(100);
    for (const nonce of nonces) expect(Buffer.from(nonce, "base64")).toHaveLength(16);
  });
});

describe("the proxy", () => {
  it("gives each page response a new nonce, in the policy sent and in the request Next.js renders", () => {
    const policies = [1, 2].map(() => {
      const response = proxy(new NextRequest("http://localhost:3000/overview"));
      const sent = response.headers.get("content-security-policy") ?? "";
      // NextResponse.next({ request }) hands the changed request headers to Next.js this way.
      expect(response.headers.get("x-middleware-request-content-security-policy")).toBe(sent);
      expect(sent).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/]{22}==' 'strict-dynamic'/);
      return sent;
    });
    expect(policies[0]).not.toBe(policies[1]);
  });

  it("runs for pages, not for JSON routes or built assets", () => {
    const source = new RegExp(`^${config.matcher[0]?.source}$`);
    for (const path of ["/", "/overview", "/cases/1b2c", "/sign-in", "/no-such-page"]) expect(path).toMatch(source);
    for (const path of ["/api/v1/cases", "/api/auth/session", "/_next/static/chunks/a.js", "/favicon.ico"]) {
      expect(path).not.toMatch(source);
    }
  });
});
