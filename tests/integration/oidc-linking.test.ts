import { describe, expect, it, vi } from "vitest";
import { authOptions, OIDC_EMAIL_UNVERIFIED } from "@/lib/auth/options";
import { linkOidcIdentity } from "@/lib/services/access/link-oidc-identity";
import { makeUser } from "./fixtures";
import { openTestDb } from "./setup/test-db";

const ISSUER = "https://id.example.com/realms/staff";
vi.hoisted(() => {
  process.env.AUTH_SECRET ??= "oidc-linking-test-secret-0123456789abcdef";
  process.env.OIDC_ISSUER = "https://id.example.com/realms/staff/";
  process.env.OIDC_CLIENT_ID = "video-recovery";
  process.env.OIDC_CLIENT_SECRET = "client-secret";
});

const { db } = openTestDb();

type Claims = { sub: string; email?: string; email_verified?: boolean | string };

/**
 * A single sign-on login as next-auth hands it to the callbacks after the identity provider's
 * callback (the ID token's claims as `profile`, the subject as the account id): whether sign-in is
 * allowed, and which account the session cookie then names.
 */
async function oidcSignIn(claims: Claims): Promise<{ allowed: boolean | string; userId?: string }> {
  const { callbacks } = authOptions();
  const user = { id: claims.sub, email: claims.email ?? null, name: claims.email ?? claims.sub };
  const account = { provider: "oidc", type: "oauth", providerAccountId: claims.sub } as const;
  const profile = { iss: ISSUER, ...claims };
  const allowed = await callbacks?.signIn?.({ user, account, profile } as never);
  if (allowed !== true) return { allowed: allowed ?? false };
  const token = await callbacks?.jwt?.({ token: {}, user, account, profile, trigger: "signIn" } as never);
  return { allowed, userId: token?.uid };
}

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: Error) => error.message,
  );

describe("single sign-on", () => {
  it("refuses an unverified email with its own sign-in error, even when an account has that email", async () => {
    const user = await makeUser(db, ["admin"]);
    expect(await refusal(oidcSignIn({ sub: "attacker-1", email: user.email }))).toBe(OIDC_EMAIL_UNVERIFIED);
    expect(await refusal(oidcSignIn({ sub: "attacker-2", email: user.email, email_verified: false }))).toBe(
      OIDC_EMAIL_UNVERIFIED,
    );
    expect(await db.userIdentity.count({ where: { userId: user.userId } })).toBe(0);
  });

  it("links a verified email once, then matches by issuer and subject only", async () => {
    const user = await makeUser(db, ["reviewer"]);
    const other = await makeUser(db, ["finance"]);
    expect(await oidcSignIn({ sub: "ana-123", email: user.email, email_verified: true })).toEqual({
      allowed: true,
      userId: user.userId,
    });
    const identity = await db.userIdentity.findUniqueOrThrow({
      where: { issuer_subject: { issuer: ISSUER, subject: "ana-123" } },
    });
    expect(identity).toMatchObject({ userId: user.userId, linkedEmail: user.email });
    const audit = await db.auditEvent.findFirstOrThrow({
      where: { kind: "user_identity_linked", actorId: user.userId },
    });
    expect(audit.after).toMatchObject({ issuer: ISSUER, subject: "ana-123" });

    // The identity provider now shows another address (even another user's): still the linked account.
    expect(await oidcSignIn({ sub: "ana-123", email: other.email, email_verified: true })).toEqual({
      allowed: true,
      userId: user.userId,
    });
    expect(await oidcSignIn({ sub: "ana-123", email: "renamed@example.com", email_verified: "true" })).toEqual({
      allowed: true,
      userId: user.userId,
    });
    expect(await db.userIdentity.count({ where: { userId: other.userId } })).toBe(0);
  });

  it("does not let a second subject with the same verified email take over a linked account", async () => {
    const user = await makeUser(db, ["admin"]);
    await oidcSignIn({ sub: "owner-1", email: user.email, email_verified: true });
    expect(await oidcSignIn({ sub: "recycled-2", email: user.email, email_verified: true })).toEqual({
      allowed: false,
    });
    expect(
      await linkOidcIdentity(db, { issuer: ISSUER, subject: "recycled-2", email: user.email, emailVerified: true }),
    ).toEqual({ ok: false, reason: "issuer_linked_to_other_subject" });
  });

  it("opens no account (no self sign-up) and none that is deactivated", async () => {
    expect(await oidcSignIn({ sub: "stranger", email: "stranger@example.com", email_verified: true })).toEqual({
      allowed: false,
    });
    const user = await makeUser(db, ["operator"]);
    await oidcSignIn({ sub: "leaver", email: user.email, email_verified: true });
    await db.user.update({ where: { id: user.userId }, data: { active: false } });
    expect(await oidcSignIn({ sub: "leaver", email: user.email, email_verified: true })).toEqual({ allowed: false });
  });

  it("keeps identities of different issuers apart", async () => {
    const user = await makeUser(db, ["operator"]);
    await linkOidcIdentity(db, { issuer: ISSUER, subject: "same-sub", email: user.email, emailVerified: true });
    expect(
      await linkOidcIdentity(db, {
        issuer: "https://other-idp.example.com",
        subject: "same-sub",
        email: "nobody@example.com",
        emailVerified: true,
      }),
    ).toEqual({ ok: false, reason: "no_account" });
  });
});
