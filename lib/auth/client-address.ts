import { isIP } from "node:net";
import { env } from "@/lib/env";
import { processShared } from "@/lib/process-shared";
import { isTrusted, parseTrustedProxies, type TrustedProxies } from "./trusted-proxies";

/**
 * The peer address of the TCP connection, as the HTTP entry (server/main.ts) writes it into each
 * request before Next.js sees it. The entry overwrites whatever a client sent under this name, so
 * code behind Next (which only has headers, e.g. next-auth's `authorize`) can trust it.
 */
export const SOCKET_ADDRESS_HEADER = "x-video-recovery-socket-address";

type Headers = Record<string, string | string[] | undefined>;

const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join(",") : value);

/** `::ffff:10.0.0.1` (an IPv4 client on a dual-stack socket) is `10.0.0.1`. */
function normalise(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped?.[1] ?? address;
}

/**
 * The client's address for sign-in limits: the socket's peer, unless `TRUSTED_PROXIES` says which
 * proxies stand in front. Then `X-Forwarded-For` is read from the right, past the trusted hops
 * only; anything further left was written by the client and is never believed.
 */
export function clientAddress(headers: Headers, trusted: TrustedProxies = configuredProxies()): string {
  const socket = normalise(first(headers[SOCKET_ADDRESS_HEADER])?.trim() ?? "");
  if (!socket) return "unknown";
  if (trusted.kind === "none") return socket;
  const forwarded = (first(headers["x-forwarded-for"]) ?? "")
    .split(",")
    .map((hop) => normalise(hop.trim()))
    .filter((hop) => isIP(hop) !== 0);
  const chain = [...forwarded, socket];
  if (trusted.kind === "hops") return chain[Math.max(0, chain.length - 1 - trusted.hops)] ?? socket;
  let index = chain.length - 1;
  while (index > 0 && isTrusted(trusted.list, chain[index] ?? "")) index--;
  return chain[index] ?? socket;
}

/** `TRUSTED_PROXIES` as configured, parsed once per process. */
export function configuredProxies(): TrustedProxies {
  return processShared("trusted-proxies", () => parseTrustedProxies(env().TRUSTED_PROXIES) ?? { kind: "none" });
}
