import type { IncomingMessage, ServerResponse } from "node:http";
import { errorResponse } from "@/lib/api/api-route";
import { AppError } from "@/lib/errors";
import { directRoute } from "./direct-routes";
import { sendFetchResponse, toFetchRequest } from "./node-bridge";
import securityHeaders from "./security-headers.json";

/** Serves the request when it is one of the direct routes; false leaves it to Next.js. */
export function serveDirect(req: IncomingMessage, res: ServerResponse): boolean {
  const direct = directRoute(req.method, req.url);
  if (!direct) return false;
  void (async () => {
    let response: Response;
    try {
      const request = toFetchRequest(req);
      response = await direct.handler(request, { params: Promise.resolve(direct.params) });
    } catch {
      // The handler answers its own failures; only an unreadable request gets here.
      response = errorResponse(new AppError("invalid_request", "The request could not be read."));
    }
    await sendFetchResponse(res, response, securityHeaders).catch(() => res.destroy());
  })();
  return true;
}
