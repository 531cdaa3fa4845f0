import type { IncomingMessage } from "node:http";
import { SOCKET_ADDRESS_HEADER } from "@/lib/auth/client-address";
import { dropUntrustedForwarding } from "@/lib/auth/forwarded-headers";
import type { TrustedProxies } from "@/lib/auth/trusted-proxies";

/**
 * Writes the connection's peer address into the request for the code behind Next.js, replacing
 * any value a client sent under the same name (lib/auth/client-address.ts reads it), and drops
 * the forwarded headers unless that peer is a trusted proxy (docs/decisions/053).
 */
export function stampSocketAddress(req: IncomingMessage, trusted?: TrustedProxies): void {
  req.headers[SOCKET_ADDRESS_HEADER] = req.socket.remoteAddress ?? "";
  dropUntrustedForwarding(req.headers, trusted);
}
