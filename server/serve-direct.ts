import type { IncomingMessage, ServerResponse } from "node:http";
import { directRoute } from "./direct-routes";
import { fromNodeRequest, sendReply } from "./node-bridge";
import securityHeaders from "./security-headers.json";

/** Serves the request when it is one of the direct routes; false leaves it to Next.js. */
export function serveDirect(req: IncomingMessage, res: ServerResponse): boolean {
  const direct = directRoute(req.method, req.url);
  if (!direct) return false;
  void (async () => {
    // The route answers its own failures (a typed error reply), never by throwing.
    const reply = await direct.handler.serve(fromNodeRequest(req), direct.params);
    sendReply(res, reply, securityHeaders, { close: !req.complete && reply.status === 413 });
  })().catch(() => res.destroy());
  return true;
}
