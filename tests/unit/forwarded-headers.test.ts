import { createServer, type IncomingHttpHeaders, request } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { sameOrigin } from "@/lib/api/authenticate-request";
import { SOCKET_ADDRESS_HEADER } from "@/lib/auth/client-address";
import { dropUntrustedForwarding } from "@/lib/auth/forwarded-headers";
import { parseTrustedProxies, type TrustedProxies } from "@/lib/auth/trusted-proxies";
import { requestListener } from "@/server/request-listener";

const trusted = (value: string): TrustedProxies => {
  const parsed = parseTrustedProxies(value);
  if (!parsed) throw new Error(`invalid ${value}`);
  return parsed;
};
const forwarded = {
  "x-forwarded-host": "evil.example",
  "x-forwarded-proto": "http",
  "x-forwarded-for": "198.51.100.7",
  "x-forwarded-port": "80",
  forwarded: "for=198.51.100.7;host=evil.example",
};
const fromPeer = (peer: string) => ({ [SOCKET_ADDRESS_HEADER]: peer, host: "console.example", ...forwarded });

describe("forwarded headers", () => {
  it("are dropped from a request whose peer is not a trusted proxy", () => {
    for (const [peer, proxies] of [
      ["203.0.113.9", { kind: "none" }],
      ["203.0.113.9", trusted("10.0.0.0/8")],
    ] as const) {
      const headers: Record<string, string> = fromPeer(peer);
      dropUntrustedForwarding(headers, proxies);
      expect(headers).toEqual({ [SOCKET_ADDRESS_HEADER]: peer, host: "console.example" });
    }
  });

  it("are kept from a listed proxy, or from the nearest hop when a hop count is set", () => {
    for (const [peer, proxies] of [
      ["10.1.2.3", trusted("10.0.0.0/8")],
      ["::ffff:10.1.2.3", trusted("10.0.0.0/8")],
      ["203.0.113.9", trusted("1")],
    ] as const) {
      const headers: Record<string, string> = fromPeer(peer);
      dropUntrustedForwarding(headers, proxies);
      expect(headers).toEqual(fromPeer(peer));
    }
  });

  it("cannot make a cross-site request look same-origin unless a trusted proxy wrote them", () => {
    const asked = (headers: Record<string, string>) => ({
      method: "POST",
      url: "/api/v1/cases",
      header: (name: string) => headers[name] ?? null,
      body: async function* () {},
    });
    const attack = { ...fromPeer("203.0.113.9"), origin: "https://evil.example" };
    expect(sameOrigin(asked(attack), { kind: "none" })).toBe(false);
    expect(sameOrigin(asked(attack), trusted("10.0.0.0/8"))).toBe(false);
    const proxied = {
      [SOCKET_ADDRESS_HEADER]: "10.1.2.3",
      host: "app:3000",
      "x-forwarded-host": "console.example",
      origin: "https://console.example",
    };
    expect(sameOrigin(asked(proxied), trusted("10.0.0.0/8"))).toBe(true);
    expect(sameOrigin(asked({ ...proxied, [SOCKET_ADDRESS_HEADER]: "203.0.113.9" }), trusted("10.0.0.0/8"))).toBe(
      false,
    );
  });

  it("never reach what the HTTP entry hands Next.js when no proxy is trusted", async () => {
    const seen: IncomingHttpHeaders[] = [];
    const listener = requestListener((req, res) => {
      seen.push({ ...req.headers });
      res.end();
    }, "http://127.0.0.1:3000");
    const server = createServer(listener);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve, reject) => {
      const req = request({ host: "127.0.0.1", port, path: "/queue", method: "POST", headers: forwarded });
      req.on("response", (res) => res.resume().on("end", resolve));
      req.on("error", reject);
      req.end();
    });
    await new Promise<void>((resolve) => server.close(() => resolve()));
    expect(seen).toHaveLength(1);
    for (const name of Object.keys(forwarded)) expect(seen[0]).not.toHaveProperty(name);
    expect(seen[0]?.host).toBe(`127.0.0.1:${port}`);
  });
});
