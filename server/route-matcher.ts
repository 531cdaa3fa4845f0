import type { ApiRoute } from "@/lib/api/api-route";
import type { Audience } from "@/lib/api/authenticate-request";

export type RouteMatch = { route: ApiRoute; params: Record<string, string> };
type Compiled = { method: string; pattern: RegExp; keys: string[]; route: ApiRoute };

/** Programs' audiences, authenticated by a bearer token or a provider's signature alone, never a session. */
const WITHOUT_SESSION: readonly Audience[] = ["producer", "worker", "provider"];
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * Exact paths with `{name}` segments, as Next.js's `[name]` folders match them: one segment each,
 * percent-decoded; no trailing slash, no other method. Anything else is not a match.
 * Only routes without a session are accepted (bearer tokens, provider signatures): a session is read
 * through Next's request context, which a request served outside Next.js does not have. Compiled once, when the entry starts.
 */
export function createRouteMatcher(routes: readonly ApiRoute[]) {
  const compiled: Compiled[] = routes.map((route) => {
    if (!WITHOUT_SESSION.includes(route.audience)) {
      throw new Error(
        `${route.method} ${route.path} may be called with a session (${route.audience}): leave it to Next.js`,
      );
    }
    const keys: string[] = [];
    const source = route.path
      .split("/")
      .map((segment) => {
        const name = /^\{(\w+)\}$/.exec(segment)?.[1];
        if (!name) return escapeRegExp(segment);
        keys.push(name);
        return "([^/]+)";
      })
      .join("/");
    return { method: route.method, pattern: new RegExp(`^${source}$`), keys, route };
  });

  return function match(method: string | undefined, url: string | undefined): RouteMatch | null {
    const pathname = (url ?? "").split("?", 1)[0] ?? "";
    for (const candidate of compiled) {
      if (candidate.method !== method) continue;
      const found = candidate.pattern.exec(pathname);
      if (!found) continue;
      const params: Record<string, string> = {};
      for (const [index, key] of candidate.keys.entries()) {
        try {
          params[key] = decodeURIComponent(found[index + 1] ?? "");
        } catch {
          // A malformed escape: not a match. The entry answers such a path 400 before it asks the
          // matcher (server/malformed-url.ts); a matcher used alone still never serves it.
          return null;
        }
      }
      return { route: candidate.route, params };
    }
    return null;
  };
}
