import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { clientAddress, SOCKET_ADDRESS_HEADER } from "@/lib/auth/client-address";
import { parseTrustedProxies, type TrustedProxies } from "@/lib/auth/trusted-proxies";
import { parseEnv } from "@/lib/env";
import { stampSocketAddress } from "@/server/socket-address";

const none: TrustedProxies = { kind: "none" };
const trusted = (value: string): TrustedProxies => {
  const parsed = parseTrustedProxies(value);
  if (!parsed) throw new Error(`invalid ${value}`);
  return parsed;
};
const socket = (address: string, forwarded?: string) => ({
  [SOCKET_ADDRESS_HEADER]: address,
  ...(forwarded === undefined ? {} : { "x-forwarded-for": forwarded }),
});

describe("client address for sign-in limits", () => {
  it("is the socket's peer when no proxy is trusted, whatever X-Forwarded-For says", () => {
    // Rotating the header must not move a client to a fresh bucket.
    expect(clientAddress(socket("203.0.113.9", "1.2.3.4"), none)).toBe("203.0.113.9");
    expect(clientAddress(socket("203.0.113.9", "1.2.3.4, 5.6.7.8"), none)).toBe("203.0.113.9");
    expect(clientAddress({ "x-forwarded-for": "1.2.3.4", "x-real-ip": "1.2.3.4" }, none)).toBe("unknown");
    expect(clientAddress(socket("::ffff:203.0.113.9"), none)).toBe("203.0.113.9");
  });

  it("reads X-Forwarded-For from the right past a trusted hop count, never further", () => {
    const one = trusted("1");
    expect(clientAddress(socket("10.0.0.2", "198.51.100.7"), one)).toBe("198.51.100.7");
    // A client-written first entry stays to the left of what the proxy appended.
    expect(clientAddress(socket("10.0.0.2", "1.2.3.4, 198.51.100.7"), one)).toBe("198.51.100.7");
    expect(clientAddress(socket("10.0.0.3", "1.2.3.4, 198.51.100.7, 10.0.0.2"), trusted("2"))).toBe("198.51.100.7");
    expect(clientAddress(socket("10.0.0.2"), one)).toBe("10.0.0.2");
  });

  it("skips only listed proxy addresses and ranges", () => {
    const list = trusted("10.0.0.0/8, 2001:db8::1");
    expect(clientAddress(socket("10.0.0.2", "1.2.3.4, 198.51.100.7, 10.9.9.9"), list)).toBe("198.51.100.7");
    expect(clientAddress(socket("2001:db8::1", "198.51.100.7"), list)).toBe("198.51.100.7");
    // Not from a listed proxy: its X-Forwarded-For is the client's own word.
    expect(clientAddress(socket("203.0.113.9", "1.2.3.4"), list)).toBe("203.0.113.9");
  });

  it("accepts only a hop count or addresses and ranges in TRUSTED_PROXIES", () => {
    expect(parseTrustedProxies(undefined)).toEqual({ kind: "none" });
    expect(parseTrustedProxies("2")).toEqual({ kind: "hops", hops: 2 });
    expect(parseTrustedProxies("10.0.0.0/8,fd00::/8")?.kind).toBe("list");
    for (const bad of ["proxy.internal", "10.0.0.0/33", "10.0.0.1/8/1", "-1", "1,"]) {
      expect(parseTrustedProxies(bad)).toBeNull();
    }
    expect(() => parseEnv({ TRUSTED_PROXIES: "proxy.internal" })).toThrow(/TRUSTED_PROXIES/);
    expect(parseEnv({ TRUSTED_PROXIES: "1" }).TRUSTED_PROXIES).toBe("1");
  });

  it("reaches the code behind the HTTP entry as the socket's address, a client's copy overwritten", async () => {
    const seen: string[] = [];
    const server = createServer((req, res) => {
      stampSocketAddress(req);
      seen.push(clientAddress(req.headers, none));
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve, reject) => {
      const req = request({
        host: "127.0.0.1",
        port,
        headers: { [SOCKET_ADDRESS_HEADER]: "198.51.100.200", "x-forwarded-for": "198.51.100.201" },
      });
      req.on("response", (res) => res.resume().on("end", resolve));
      req.on("error", reject);
      req.end();
    });
    await new Promise<void>((resolve) => server.close(() => resolve()));
    expect(seen).toEqual(["127.0.0.1"]);
  });
});
