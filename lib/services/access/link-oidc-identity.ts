import { recordAudit } from "@/lib/audit/writer";
import type { Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import { scopeFromColumn } from "@/lib/domain/producer-scope";
import { isRole } from "@/lib/domain/roles";

export type OidcLogin = { issuer: string; subject: string; email: string | null; emailVerified: boolean };
export type OidcRefusal = "email_unverified" | "no_account" | "inactive" | "issuer_linked_to_other_subject";
export type OidcLinkResult = { ok: true; userId: string } | { ok: false; reason: OidcRefusal };

/**
 * Which account a single sign-on login is (decision 016). An identity already linked is found by
 * issuer + subject alone: what the email claim says now does not matter. An unlinked identity links
 * to the account with its email once, and only when the identity provider says the email is
 * verified; an account already linked to another subject of the same issuer is not taken over by a
 * new subject that shows the same email. No self sign-up: only accounts an admin created.
 */
export async function linkOidcIdentity(db: Db, login: OidcLogin): Promise<OidcLinkResult> {
  return inTransaction(db, async (tx) => {
    const identity = await tx.userIdentity.findUnique({
      where: { issuer_subject: { issuer: login.issuer, subject: login.subject } },
      include: { user: { select: { active: true } } },
    });
    if (identity) {
      if (!identity.user.active) return { ok: false, reason: "inactive" };
      await tx.userIdentity.update({ where: { id: identity.id }, data: { lastUsedAt: new Date() } });
      return { ok: true, userId: identity.userId };
    }
    if (!login.emailVerified) return { ok: false, reason: "email_unverified" };
    const email = login.email?.trim().toLowerCase();
    if (!email) return { ok: false, reason: "no_account" };
    const user = await tx.user.findUnique({ where: { email } });
    if (!user) return { ok: false, reason: "no_account" };
    if (!user.active) return { ok: false, reason: "inactive" };
    const other = await tx.userIdentity.findUnique({
      where: { userId_issuer: { userId: user.id, issuer: login.issuer } },
    });
    if (other) return { ok: false, reason: "issuer_linked_to_other_subject" };
    await tx.userIdentity.create({
      data: {
        userId: user.id,
        issuer: login.issuer,
        subject: login.subject,
        linkedEmail: email,
        lastUsedAt: new Date(),
      },
    });
    await recordAudit(tx, {
      actor: {
        kind: "user",
        userId: user.id,
        email: user.email,
        name: user.name,
        roles: user.roles.filter(isRole),
        producers: scopeFromColumn(user.producerScope),
      },
      kind: "user_identity_linked",
      after: { id: user.id, email: user.email, issuer: login.issuer, subject: login.subject },
    });
    return { ok: true, userId: user.id };
  });
}

/** Identity providers send `email_verified` as a boolean; a few send the string "true". */
export function claimsEmailVerified(value: unknown): boolean {
  return value === true || value === "true";
}
