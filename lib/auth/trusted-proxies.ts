import { BlockList, isIP } from "node:net";

/**
 * `TRUSTED_PROXIES`: how many proxies stand in front of the app (`1`, `2`…), or which addresses
 * they have (`10.0.0.5, 10.1.0.0/16, fd00::/8`). Unset: none, and the client is the socket's peer.
 */
export type TrustedProxies = { kind: "none" } | { kind: "hops"; hops: number } | { kind: "list"; list: BlockList };

const HOPS = /^\d{1,2}$/;

export function parseTrustedProxies(value: string | undefined): TrustedProxies | null {
  const text = value?.trim() ?? "";
  if (text === "" || text === "0") return { kind: "none" };
  if (HOPS.test(text)) return { kind: "hops", hops: Number(text) };
  const list = new BlockList();
  for (const entry of text.split(",").map((part) => part.trim())) {
    const [address = "", prefix, ...rest] = entry.split("/");
    const family = isIP(address);
    if (family === 0 || rest.length > 0) return null;
    const type = family === 4 ? "ipv4" : "ipv6";
    if (prefix === undefined) {
      list.addAddress(address, type);
      continue;
    }
    const bits = Number(prefix);
    if (!/^\d{1,3}$/.test(prefix) || bits > (family === 4 ? 32 : 128)) return null;
    list.addSubnet(address, bits, type);
  }
  return { kind: "list", list };
}

export function isTrusted(list: BlockList, address: string): boolean {
  const family = isIP(address);
  return family !== 0 && list.check(address, family === 4 ? "ipv4" : "ipv6");
}
