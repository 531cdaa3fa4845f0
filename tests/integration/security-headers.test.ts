import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requestListener } from "@/server/request-listener";
import securityHeaders from "@/server/security-headers.json";
import { STRICT_TRANSPORT_SECURITY } from "@/server/security-policy";

// The HTTP entry's listener, as server/main.ts wires it, over real HTTP: a direct route (a worker
// tick without its token, refused before any work) and a request it leaves to Next.js, which here
// is a stand-in that answers 599.
const servers: Server[] = [];

async function entry(authUrl: string): Promise<string> {
  const standInForNext = (_req: unknown, res: ServerResponse) => {
    res.statusCode = 599;
    res.end("next");
  };
  const server = createServer(requestListener(standInForNext, authUrl));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

let https = "";
let http = "";
beforeAll(async () => {
  https = await entry("https://console.example.com");
  http = await entry("http://localhost:3000");
});
afterAll(() => Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve)))));

const directRoute = (base: string) => fetch(`${base}/api/worker/tick`, { method: "POST", body: "{}" });
const leftToNext = (base: string) => fetch(`${base}/overview`);

describe("the HTTP entry's headers", () => {
  it("send HSTS on every response, direct or not, when the console's address is https", async () => {
    const direct = await directRoute(https);
    expect(direct.status).toBe(401);
    const next = await leftToNext(https);
    expect(next.status).toBe(599);
    for (const response of [direct, next]) {
      expect(response.headers.get("strict-transport-security")).toBe(STRICT_TRANSPORT_SECURITY);
    }
  });

  it("send no HSTS over plain http", async () => {
    for (const response of [await directRoute(http), await leftToNext(http)]) {
      expect(response.headers.get("strict-transport-security")).toBeNull();
    }
  });

  it("give the direct routes the static list, Permissions-Policy included, and no X-Powered-By", async () => {
    const direct = await directRoute(https);
    for (const { key, value } of securityHeaders) expect(direct.headers.get(key)).toBe(value);
    expect(direct.headers.get("permissions-policy")).toMatch(/camera=\(\).*geolocation=\(\).*microphone=\(\)/);
    expect(direct.headers.get("x-powered-by")).toBeNull();
  });
});
