import { API_ROUTES } from "@/lib/api/routes";
import { createRouteMatcher } from "@/server/route-matcher";

const match = createRouteMatcher(
  API_ROUTES.filter((route) => route.audience === "producer" || route.audience === "provider"),
);

/**
 * A `fetch` that hands the request to the product's own route handler for its path, exactly as
 * Next.js calls it (authentication, signatures, validation, the service), without a socket: the
 * shops' SDK and the providers' webhooks reach the product in the simulation's own order.
 */
export const inProcessFetch: typeof fetch = async (input, init) => {
  const request = new Request(input, init);
  const url = new URL(request.url);
  const found = match(request.method, `${url.pathname}${url.search}`);
  if (!found) return Response.json({ error: { code: "not_found", message: "no such route" } }, { status: 404 });
  return found.route.handle(request, { params: Promise.resolve(found.params) });
};

/** A shop's process: its calls reach the product until it crashes, and never after. */
export class ShopProcess {
  alive = true;

  readonly fetch: typeof fetch = (input, init) =>
    this.alive ? inProcessFetch(input, init) : Promise.reject(new Error("the shop's process is gone"));

  crash(): void {
    this.alive = false;
  }
}
