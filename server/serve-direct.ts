import type { IncomingMessage, ServerResponse } from "node:http";
import { API_ROUTES } from "@/lib/api/routes";
import { fromNodeRequest, sendReply } from "./node-bridge";
import { createRouteMatcher } from "./route-matcher";
import securityHeaders from "./security-headers.json";

/**
 * The routes programs call in bursts (producers registering cases, worker ticks): the table's
 * `direct` entries, served with the handlers Next.js serves them with, minus its router. Every
 * other route, and every other method on these paths, goes to Next.js.
 */
const directRoute = createRouteMatcher(API_ROUTES.filter((route) => route.direct));

/** Serves the request when it is one of the direct routes; false leaves it to Next.js. */
export function serveDirect(req: IncomingMessage, res: ServerResponse): boolean {
  const direct = directRoute(req.method, req.url);
  if (!direct) return false;
  void (async () => {
    // The route answers its own failures (a typed error reply), never by throwing.
    const reply = await direct.route.serve(fromNodeRequest(req), direct.params);
    sendReply(res, reply, securityHeaders, { close: !req.complete && reply.status === 413 });
  })().catch(() => res.destroy());
  return true;
}
