import type { ApiRouteHandler } from "@/lib/api/api-route";
import type { Audience } from "@/lib/api/authenticate-request";

export type RouteMatch = { handler: ApiRouteHandler; params: Record<string, string> };
type Compiled = { method: string; pattern: RegExp; keys: string[]; handler: ApiRouteHandler };

/** Programs' audiences, authenticated by bearer token alone. */
const BEARER_ONLY: readonly Audience[] = ["producer", "worker"];
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * Exact paths with `:name` segments, as Next.js's `[name]` folders match them: one segment each,
 * percent-decoded; no trailing slash, no other method. Anything else is not a match.
 * Only bearer-token routes are accepted: a session is read through Next's request context, which a
 * request served outside Next.js does not have.
 */
export function createRouteMatcher(routes: readonly [method: string, path: string, handler: ApiRouteHandler][]) {
  const compiled: Compiled[] = routes.map(([method, path, handler]) => {
    if (!BEARER_ONLY.includes(handler.audience)) {
      throw new Error(`${method} ${path} is not a bearer-only route (${handler.audience}): leave it to Next.js`);
    }
    const keys: string[] = [];
    const source = path
      .split("/")
      .map((segment) => {
        if (!segment.startsWith(":")) return escapeRegExp(segment);
        keys.push(segment.slice(1));
        return "([^/]+)";
      })
      .join("/");
    return { method, pattern: new RegExp(`^${source}$`), keys, handler };
  });

  return function match(method: string | undefined, url: string | undefined): RouteMatch | null {
    const pathname = (url ?? "").split("?", 1)[0] ?? "";
    for (const route of compiled) {
      if (route.method !== method) continue;
      const found = route.pattern.exec(pathname);
      if (!found) continue;
      const params: Record<string, string> = {};
      for (const [index, key] of route.keys.entries()) {
        try {
          params[key] = decodeURIComponent(found[index + 1] ?? "");
        } catch {
          return null; // A malformed escape: Next.js answers it as it always has.
        }
      }
      return { handler: route.handler, params };
    }
    return null;
  };
}
