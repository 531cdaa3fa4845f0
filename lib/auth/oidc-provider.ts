import type { OAuthConfig } from "next-auth/providers/oauth";
import type { Env } from "@/lib/env";

export type OidcProfile = {
  iss?: string;
  sub: string;
  email?: string;
  email_verified?: boolean | string;
  name?: string;
  preferred_username?: string;
};

/** The configured issuer as identities are stored under it (no trailing slash). */
export function oidcIssuer(config: Env): string {
  return (config.OIDC_ISSUER ?? "").replace(/\/$/, "");
}

/** A generic OpenID Connect provider, discovered from the issuer's well-known document. */
export function oidcProvider(config: Env): OAuthConfig<OidcProfile> {
  const issuer = oidcIssuer(config);
  return {
    id: "oidc",
    name: config.OIDC_NAME,
    type: "oauth",
    wellKnown: `${issuer}/.well-known/openid-configuration`,
    issuer,
    clientId: config.OIDC_CLIENT_ID,
    clientSecret: config.OIDC_CLIENT_SECRET,
    authorization: { params: { scope: "openid email profile" } },
    idToken: true,
    checks: ["pkce", "state"],
    profile(profile) {
      return {
        id: profile.sub,
        email: profile.email ?? null,
        name: profile.name ?? profile.preferred_username ?? profile.email ?? profile.sub,
      };
    },
  };
}
