import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { z } from "zod";
import { db } from "@/lib/db/client";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { verifyCredentials } from "@/lib/services/verify-credentials";
import { clientAddress } from "./client-address";
import { oidcProvider } from "./oidc-provider";

const credentialsSchema = z.object({
  email: z.string().trim().min(3).max(320),
  password: z.string().min(1).max(1024),
});

export function authOptions(): NextAuthOptions {
  const config = env();
  if (!config.AUTH_SECRET) throw new Error("AUTH_SECRET is not set (the launcher provides one in demo mode)");
  return {
    secret: config.AUTH_SECRET,
    session: { strategy: "jwt", maxAge: config.SESSION_MAX_AGE_SECONDS },
    jwt: { maxAge: config.SESSION_MAX_AGE_SECONDS },
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
              { ...parsed.data, ip: clientAddress(req.headers ?? {}) },
              {
                perAccount: config.LOGIN_MAX_ATTEMPTS_PER_ACCOUNT,
                perIp: config.LOGIN_MAX_ATTEMPTS_PER_IP,
                windowSeconds: config.LOGIN_WINDOW_SECONDS,
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
      async signIn({ user, account }) {
        if (account?.provider !== "oidc") return true;
        // No self sign-up: single sign-on only opens accounts an admin already created.
        const email = user.email?.trim().toLowerCase();
        if (!email) return false;
        const existing = await db().user.findUnique({ where: { email } });
        return Boolean(existing?.active);
      },
      async jwt({ token, user, account }) {
        if (!user) return token;
        const email = (user.email ?? "").toLowerCase();
        const record = await db().user.findUnique({ where: { email } });
        if (!record) return token;
        if (account?.provider === "oidc") {
          await db().user.update({ where: { id: record.id }, data: { lastSignInAt: new Date() } });
        }
        return {
          ...token,
          sub: record.id,
          uid: record.id,
          roles: record.roles,
          authTime: Math.floor(Date.now() / 1000),
        };
      },
      async session({ session, token }) {
        return {
          ...session,
          user: {
            id: token.uid ?? "",
            email: token.email ?? "",
            name: token.name ?? "",
            roles: token.roles ?? [],
          },
          authTime: token.authTime ?? 0,
        };
      },
    },
  };
}
