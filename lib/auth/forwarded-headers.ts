import { configuredProxies, SOCKET_ADDRESS_HEADER } from "./client-address";
import { isTrusted, type TrustedProxies } from "./trusted-proxies";

/** What a proxy writes about the client's request: believed only from a proxy `TRUSTED_PROXIES` names. */
export const FORWARDED_HEADERS = [
  "x-forwarded-host",
  "x-forwarded-proto",
  "x-forwarded-for",
  "x-forwarded-port",
  "forwarded",
] as const;

type Headers = Record<string, string | string[] | undefined>;

/**
 * Whether the connection's peer is a proxy we trust (docs/decisions/053): a listed address or
 * range, or, with a hop count, whoever connects (the nearest proxy is then the only peer there is).
 * Unset, nobody is, and forwarded headers are a client's own words.
 */
export function peerIsTrustedProxy(socketAddress: string | null | undefined, trusted: TrustedProxies): boolean {
  if (!socketAddress) return false;
  if (trusted.kind === "none") return false;
  if (trusted.kind === "hops") return trusted.hops > 0;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(socketAddress);
  return isTrusted(trusted.list, mapped?.[1] ?? socketAddress);
}

/**
 * At the HTTP entry, after the peer address is stamped: a request not from a trusted proxy loses
 * every forwarded header, so neither Next.js's own origin check for server actions (which prefers
 * `X-Forwarded-Host` to `Host`), nor next-auth, nor our routes can be told another host or scheme.
 */
export function dropUntrustedForwarding(headers: Headers, trusted: TrustedProxies = configuredProxies()): void {
  const socket = headers[SOCKET_ADDRESS_HEADER];
  if (peerIsTrustedProxy(Array.isArray(socket) ? socket[0] : socket, trusted)) return;
  for (const name of FORWARDED_HEADERS) delete headers[name];
}

/** The host a request was addressed to: a trusted proxy's `X-Forwarded-Host`, or else `Host`. */
export function requestHost(
  header: (name: string) => string | null,
  trusted: TrustedProxies = configuredProxies(),
): string | null {
  const forwarded = peerIsTrustedProxy(header(SOCKET_ADDRESS_HEADER), trusted) ? header("x-forwarded-host") : null;
  // A chain of proxies may list several hosts; the first is the one the client asked for.
  return forwarded?.split(",")[0]?.trim() || header("host");
}
