import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccessToken } from "@/lib/services/access/create-access-token";
import { hasMalformedEscape } from "@/server/malformed-url";
import { requestListener } from "@/server/request-listener";
import securityHeaders from "@/server/security-headers.json";
import { tableCounts } from "./helpers/table-counts";
import { openTestDb } from "./setup/test-db";

// The HTTP entry over real HTTP, with a stand-in for Next.js that answers 599 and counts its calls.
const { db } = openTestDb();
let server: Server;
let base = "";
let producerKey = "";
let reachedNext = 0;

beforeAll(async () => {
  producerKey = (await createAccessToken(db, "cli", { kind: "api_key", name: "malformed-url-app" })).secret;
  const standInForNext = (_req: unknown, res: { statusCode: number; end(text: string): void }) => {
    reachedNext++;
    res.statusCode = 599;
    res.end("next");
  };
  server = createServer(requestListener(standInForNext, "http://localhost"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const BAD_ESCAPES = ["%FF", "%ED%A0%80", "%C0%AF", "%E0%A4%A", "%", "a%zz", "%F4%90%80%80"];

describe("a path whose percent-escapes do not decode", () => {
  it("is told apart from a path that decodes, whatever its query", () => {
    for (const bad of BAD_ESCAPES) expect(hasMalformedEscape(`/cases/${bad}`), bad).toBe(true);
    for (const fine of ["/cases/a%20b", "/cases/%E2%9C%93", "/api/v1/cases?x=%FF", "/queue", "/cases/%00", undefined]) {
      expect(hasMalformedEscape(fine), String(fine)).toBe(false);
    }
  });

  it("answers 400 in the API's error shape on API routes, direct or Next's, and changes nothing", async () => {
    const before = await tableCounts(db);
    const auth = { authorization: `Bearer ${producerKey}` };
    const requests: [string, string][] = [
      ["GET", "/api/v1/cases/%FF"],
      ["GET", "/api/v1/cases/by-operation/%ED%A0%80"],
      ["GET", "/api/v1/cases/%FF/evidence"],
      ["POST", "/api/v1/replacements/%E0%A4%A/ack"],
      ["POST", "/api/v1/operations/%C0%AF/attempts"],
      ["GET", "/api/v1/nothing/%FF?x=1"],
    ];
    for (const [method, path] of requests) {
      const res = await fetch(`${base}${path}`, { method, headers: auth });
      expect(res.status, `${method} ${path}`).toBe(400);
      expect(res.headers.get("content-type")).toMatch(/^application\/json/);
      for (const { key, value } of securityHeaders) expect(res.headers.get(key)).toBe(value);
      expect(await res.json()).toEqual({
        error: { code: "invalid_request", message: "The URL is not validly encoded." },
      });
    }
    expect(reachedNext).toBe(0);
    expect(await tableCounts(db)).toEqual(before);
  });

  it("answers a 400 page, not a 500, on console pages", async () => {
    for (const path of ["/cases/%FF", "/cases/%FF/evidence", "/queue/%ED%A0%80", "/%C0%AF"]) {
      const res = await fetch(`${base}${path}`);
      expect(res.status, path).toBe(400);
      expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(res.headers.get("content-security-policy")).toMatch(/^default-src 'none'/);
      expect(await res.text()).toMatch(/<h1>400 · Bad address<\/h1>/);
    }
    expect(reachedNext).toBe(0);
  });

  it("leaves well-formed paths to the routes and to Next.js as before", async () => {
    const found = await fetch(`${base}/api/v1/cases/by-operation/${encodeURIComponent("no such op/1")}`, {
      headers: { authorization: `Bearer ${producerKey}` },
    });
    expect(found.status).toBe(404);
    expect((await fetch(`${base}/cases/abc?x=%FF`)).status).toBe(599);
    expect(reachedNext).toBe(1);
  });
});
