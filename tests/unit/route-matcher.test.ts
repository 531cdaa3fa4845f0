import { describe, expect, it } from "vitest";
import { type ApiRoute, apiRoute, type Method } from "@/lib/api/api-route";
import type { Audience } from "@/lib/api/authenticate-request";
import { createRouteMatcher } from "@/server/route-matcher";

const route = (method: Method, path: string, audience: Audience = "producer"): ApiRoute =>
  apiRoute({ method, path, audience, summary: path, success: [200], handler: async () => path });

const cases = route("POST", "/api/v1/cases");
const ack = route("POST", "/api/v1/replacements/{id}/ack");
const match = createRouteMatcher([cases, ack]);

describe("the HTTP entry's route matcher", () => {
  it("matches the exact path and method, ignoring the query", () => {
    expect(match("POST", "/api/v1/cases")).toEqual({ route: cases, params: {} });
    expect(match("POST", "/api/v1/cases?x=1")).toEqual({ route: cases, params: {} });
  });

  it("leaves every other method, path, trailing slash and prefix to Next.js", () => {
    for (const [method, url] of [
      ["GET", "/api/v1/cases"],
      ["POST", "/api/v1/cases/"],
      ["POST", "/api/v1/casesx"],
      ["POST", "/x/api/v1/cases"],
      ["POST", "/api/v1/replacements//ack"],
      ["POST", "/api/v1/replacements/a/b/ack"],
      [undefined, "/api/v1/cases"],
      ["POST", undefined],
    ] as const) {
      expect(match(method, url), `${method} ${url}`).toBeNull();
    }
  });

  it("decodes a segment as Next.js does, and never matches a malformed escape (the entry answers it 400)", () => {
    expect(match("POST", "/api/v1/replacements/a%20b%2Fc/ack")?.params).toEqual({ id: "a b/c" });
    expect(match("POST", "/api/v1/replacements/%E0%A4%A/ack")).toBeNull();
  });

  it("takes a literal segment literally", () => {
    const doc = createRouteMatcher([route("POST", "/api/v1/openapi.json")]);
    expect(doc("POST", "/api/v1/openapi.json")).not.toBeNull();
    expect(doc("POST", "/api/v1/openapiXjson")).toBeNull();
  });

  it("refuses a route that accepts sessions: those need Next's request context", () => {
    expect(() => createRouteMatcher([route("GET", "/api/v1/cases", "user")])).toThrow(/with a session/);
  });
});
