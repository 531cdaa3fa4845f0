import type { NextAuthOptions, Session } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { z } from "zod";
import { db } from "@/lib/db/client";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { recordSignOut } from "@/lib/services/access/end-sessions";
import { claimsEmailVerified, linkOidcIdentity } from "@/lib/services/access/link-oidc-identity";
import { resolveSession } from "@/lib/services/access/resolve-session";
import { verifyCredentials } from "@/lib/services/access/verify-credentials";
import { addressKey } from "./address-key";
import { clientAddress } from "./client-address";
import { type OidcProfile, oidcIssuer, oidcProvider } from "./oidc-provider";
import { newSessionClaims } from "./session-claims";

const credentialsSchema = z.object({
  email: z.string().trim().min(3).max(320),
  password: z.string().min(1).max(1024),
});

/** Sign-in error codes the sign-in page explains (next-auth passes a thrown message on as `?error=`). */
export const OIDC_EMAIL_UNVERIFIED = "OidcEmailUnverified";

export function authOptions(): NextAuthOptions {
  const config = env();
  if (!config.AUTH_SECRET) throw new Error("AUTH_SECRET is not set (the launcher provides one in demo mode)");
  const maxAge = config.SESSION_MAX_AGE_SECONDS;
  return {
    secret: config.AUTH_SECRET,
    session: { strategy: "jwt", maxAge },
    jwt: { maxAge },
    pages: { signIn: "/sign-in", error: "/sign-in" },
    providers: [
      CredentialsProvider({
        name: "Email and password",
        credentials: { email: { type: "email" }, password: { type: "password" } },
        async authorize(credentials, req) {
          const parsed = credentialsSchema.safeParse(credentials);
          if (!parsed.success) return null;
          try {
            return await verifyCredentials(
              db(),
              // An IPv6 client is counted by its /64 (decision 053).
              { ...parsed.data, ip: addressKey(clientAddress(req.headers ?? {})) },
              {
                perAccount: config.LOGIN_MAX_ATTEMPTS_PER_ACCOUNT,
                perIp: config.LOGIN_MAX_ATTEMPTS_PER_IP,
                windowSeconds: config.LOGIN_WINDOW_SECONDS,
                account: { burst: config.LOGIN_ACCOUNT_BURST, refillSeconds: config.LOGIN_ACCOUNT_REFILL_SECONDS },
              },
            );
          } catch (error) {
            if (error instanceof AppError && error.code === "rate_limited") throw new Error("rate_limited");
            throw error;
          }
        },
      }),
      ...(config.oidcEnabled ? [oidcProvider(config)] : []),
    ],
    callbacks: {
      async signIn({ user, account, profile }) {
        if (account?.provider !== "oidc") return true;
        const claims = (profile ?? {}) as Partial<OidcProfile>;
        const linked = await linkOidcIdentity(db(), {
          issuer: oidcIssuer(config),
          subject: account.providerAccountId,
          email: user.email ?? claims.email ?? null,
          emailVerified: claimsEmailVerified(claims.email_verified),
        });
        if (linked.ok) return true;
        if (linked.reason === "email_unverified") throw new Error(OIDC_EMAIL_UNVERIFIED);
        return false;
      },
      async jwt({ token, user, account }) {
        if (!user) return token;
        // The account signing in: the credentials check's user, or the identity linked above.
        const userId =
          account?.provider === "oidc"
            ? (
                await db().userIdentity.findUnique({
                  where: { issuer_subject: { issuer: oidcIssuer(config), subject: account.providerAccountId } },
                  select: { userId: true },
                })
              )?.userId
            : user.id;
        const record = userId ? await db().user.findUnique({ where: { id: userId } }) : null;
        if (!record) return {};
        if (account?.provider === "oidc") {
          await db().user.update({ where: { id: record.id }, data: { lastSignInAt: new Date() } });
        }
        return { sub: record.id, email: record.email, name: record.name, ...newSessionClaims(record) };
      },
      async session({ session, token }) {
        // The one session check, run wherever a session is read (pages, actions, API routes, and
        // next-auth's own session endpoint). A refused cookie yields an empty session, which
        // next-auth reports as signed out (`getServerSession` returns null).
        const user = await resolveSession(db(), token, maxAge);
        if (!user) return {} as Session;
        return {
          expires: session.expires,
          user: { id: user.userId, email: user.email, name: user.name, roles: user.roles, producers: user.producers },
          authTime: token.authTime ?? 0,
        };
      },
    },
    events: {
      async signOut({ token }) {
        await recordSignOut(db(), token, maxAge);
      },
    },
  };
}
