import { requestHost } from "@/lib/auth/forwarded-headers";
import { currentUser } from "@/lib/auth/session";
import { bearerSecret } from "@/lib/auth/token-secret";
import type { TrustedProxies } from "@/lib/auth/trusted-proxies";
import { db } from "@/lib/db/client";
import type { Principal } from "@/lib/domain/principal";
import { AppError } from "@/lib/errors";
import { admitToken } from "@/lib/services/access/authenticate-token";
import type { RateLimitResult } from "@/lib/services/access/consume-rate-limit";
import type { ApiRequest } from "./api-request";

/** Who a route is for; `provider` routes are authenticated by the provider's signature alone. */
export type Audience = "producer" | "user" | "worker" | "provider";

const EXPECTED_KIND = { producer: "api_key", user: "user", worker: "worker" } as const;
const TOKEN_KIND = { producer: "api_key", user: "personal", worker: "worker" } as const;

export type RateWindow = { limit: number; windowSeconds: number };

/** A bearer token's request is counted in the statement that resolves it; a session's is not yet. */
export type Authenticated = { actor: Principal; rateLimit: RateLimitResult | null };

/**
 * Bearer tokens for programs; for people, the console's session cookie, accepted on a mutating
 * request only from the console's own origin (a cross-site form cannot act as the user).
 */
export async function authenticateRequest(
  req: ApiRequest,
  audience: Exclude<Audience, "provider">,
  window: RateWindow,
): Promise<Authenticated> {
  const header = req.header("authorization");
  if (header) {
    const secret = bearerSecret(header);
    const count = { tokenKind: TOKEN_KIND[audience], ...window };
    const { principal, rateLimit } = secret
      ? await admitToken(db(), secret, count)
      : { principal: null, rateLimit: null };
    if (!principal) throw new AppError("unauthenticated", "The token is missing, malformed, revoked or expired.");
    if (principal.kind !== EXPECTED_KIND[audience]) {
      throw new AppError("forbidden", "This token cannot be used on this route.");
    }
    return { actor: principal, rateLimit };
  }
  if (audience === "user") {
    const user = await currentUser();
    if (user) {
      if (req.method !== "GET" && !sameOrigin(req)) throw new AppError("forbidden", "Cross-origin request refused.");
      return { actor: user, rateLimit: null };
    }
  }
  throw new AppError("unauthenticated", "Authenticate with a bearer token or sign in.");
}

/** `X-Forwarded-Host` counts only from a trusted proxy (docs/decisions/053); otherwise `Host`. */
export function sameOrigin(req: ApiRequest, trusted?: TrustedProxies): boolean {
  const origin = req.header("origin");
  if (!origin) return req.header("sec-fetch-site") !== "cross-site";
  const host = requestHost((name) => req.header(name), trusted);
  try {
    return new URL(origin).host === host;
  } catch {
    return false;
  }
}
