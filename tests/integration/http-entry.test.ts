import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccessToken } from "@/lib/services/access/create-access-token";
import securityHeaders from "@/server/security-headers.json";
import { serveDirect } from "@/server/serve-direct";
import { parkInput } from "./fixtures";
import { tableCounts } from "./helpers/table-counts";
import { openTestDb } from "./setup/test-db";

// The HTTP entry's direct routes over real HTTP; whatever it does not serve answers 599 here,
// standing in for Next.js.
const { db } = openTestDb();
let server: Server;
let base = "";
let producerKey = "";

beforeAll(async () => {
  producerKey = (await createAccessToken(db, "cli", { kind: "api_key", name: "entry-app" })).secret;
  server = createServer((req, res) => {
    if (serveDirect(req, res)) return;
    res.statusCode = 599;
    res.end("next");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const post = (path: string, body: string, headers: Record<string, string> = {}) =>
  fetch(`${base}${path}`, {
    method: "POST",
    body,
    headers: { authorization: `Bearer ${producerKey}`, "content-type": "application/json", ...headers },
  });

/** A body sent in chunks with no Content-Length: only counting while reading can stop it. */
function postChunked(path: string, chunks: string[]): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${producerKey}`, "content-type": "application/json" },
    });
    req.on("response", (res) => {
      let text = "";
      res.setEncoding("utf8").on("data", (chunk: string) => {
        text += chunk;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
    });
    // The server may answer and close before the last chunk is written.
    req.on("error", (error) => (error.message.includes("EPIPE") ? undefined : reject(error)));
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

describe("the HTTP entry's direct routes", () => {
  it("register a case (201), answer its replay (200) with the same body, and send the console's headers", async () => {
    const input = JSON.stringify(parkInput("polling"));
    const before = await tableCounts(db);
    const first = await post("/api/v1/cases", input);
    expect(first.status).toBe(201);
    const created = await first.json();
    expect(created).toMatchObject({ created: true, stage: "polling" });
    for (const { key, value } of securityHeaders) expect(first.headers.get(key)).toBe(value);
    expect(first.headers.get("content-type")).toMatch(/^application\/json/);

    const again = await post("/api/v1/cases", input);
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ ...created, created: false });
    const after = await tableCounts(db);
    expect(after.cases).toBe((before.cases ?? 0) + 1);
  });

  it("refuse bad input with the API's typed errors and change nothing", async () => {
    const before = await tableCounts(db);
    const refusals: [Response, number, string][] = [
      [await post("/api/v1/cases", "{not json"), 400, "invalid_request"],
      [await post("/api/v1/cases", "{}", { "content-type": "text/plain" }), 415, "unsupported_media_type"],
      [await post("/api/v1/cases", `"${"x".repeat(70_000)}"`), 413, "payload_too_large"],
      [await post("/api/v1/cases", "{}", { authorization: "Bearer vrk_forged" }), 401, "unauthenticated"],
      [await post("/api/worker/tick", "{}"), 403, "forbidden"],
    ];
    for (const [response, status, code] of refusals) {
      expect(response.status).toBe(status);
      const text = await response.text();
      expect(JSON.parse(text).error.code).toBe(code);
      expect(text).not.toMatch(/at .*\.ts|node_modules/);
    }
    expect(await tableCounts(db)).toEqual(before);
  });

  it("count a body sent without Content-Length while reading it: over 64 KB is refused, a small one registers", async () => {
    const before = await tableCounts(db);
    const chunked = await postChunked("/api/v1/cases", [
      '"',
      ...Array.from({ length: 9 }, () => "x".repeat(8_000)),
      '"',
    ]);
    expect(chunked.status).toBe(413);
    expect(JSON.parse(chunked.text).error.code).toBe("payload_too_large");
    const small = JSON.stringify(parkInput("polling"));
    const fine = await postChunked("/api/v1/cases", [small.slice(0, 40), small.slice(40)]);
    expect(fine.status).toBe(201);
    expect((await tableCounts(db)).cases).toBe((before.cases ?? 0) + 1);
  });

  it("read a decoded path parameter, and leave sessions, other methods and odd paths to Next.js", async () => {
    const input = parkInput("delivery", { operationId: "entry order/1" });
    expect((await post("/api/v1/cases", JSON.stringify(input))).status).toBe(201);
    const found = await fetch(`${base}/api/v1/cases/by-operation/${encodeURIComponent("entry order/1")}`, {
      headers: { authorization: `Bearer ${producerKey}` },
    });
    expect(found.status).toBe(200);
    expect(await found.json()).toMatchObject({ operationId: "entry order/1" });

    for (const [method, path] of [
      ["GET", "/api/v1/cases"],
      ["POST", "/api/v1/cases/"],
      ["GET", "/api/v1/cases/by-operation/%E0%A4%A"],
      ["GET", "/queue"],
    ]) {
      expect((await fetch(`${base}${path}`, { method })).status, `${method} ${path}`).toBe(599);
    }
  });
});
