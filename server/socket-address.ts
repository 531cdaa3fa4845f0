import type { IncomingMessage } from "node:http";
import { SOCKET_ADDRESS_HEADER } from "@/lib/auth/client-address";

/**
 * Writes the connection's peer address into the request for the code behind Next.js, replacing
 * any value a client sent under the same name (lib/auth/client-address.ts reads it).
 */
export function stampSocketAddress(req: IncomingMessage): void {
  req.headers[SOCKET_ADDRESS_HEADER] = req.socket.remoteAddress ?? "";
}
