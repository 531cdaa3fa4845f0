import type { Principal } from "@/lib/domain/principal";

/**
 * One rate-limit counter per principal, `api:<kind>:<id>`: a person counts the same from the
 * console's session and from a personal token. `admitToken` builds the same keys in SQL from these
 * prefixes, so the scheme lives here alone.
 */
export const RATE_KEY_PREFIX = {
  api_key: "api:key:",
  worker: "api:worker:",
  user: "api:user:",
  provider: "api:provider:",
} as const;

export function rateLimitKey(actor: Principal): string {
  switch (actor.kind) {
    case "user":
      return `${RATE_KEY_PREFIX.user}${actor.userId}`;
    case "api_key":
      return `${RATE_KEY_PREFIX.api_key}${actor.apiKeyId}`;
    case "worker":
      return `${RATE_KEY_PREFIX.worker}${actor.tokenId}`;
    case "provider":
      return `${RATE_KEY_PREFIX.provider}${actor.provider}`;
  }
}
