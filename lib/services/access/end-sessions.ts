import { recordAudit } from "@/lib/audit/writer";
import { parseSessionClaims } from "@/lib/auth/session-claims";
import type { Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import type { Principal } from "@/lib/domain/principal";
import { AppError } from "@/lib/errors";
import { requirePermission } from "./actor";

/**
 * Ends every session the user has: cookies carry the version they were issued at, and the session
 * check refuses any other. Called in the transaction of the change that needs it.
 */
export async function bumpSessionVersion(tx: Db, userId: string): Promise<{ sessionVersion: number }> {
  return tx.user.update({
    where: { id: userId },
    data: { sessionVersion: { increment: 1 } },
    select: { sessionVersion: true },
  });
}

/**
 * "Sign out everywhere" for yourself, or "sign this user out" for an admin. Signs out the current
 * browser too when it is the actor's own.
 */
export async function endUserSessions(db: Db, actor: Principal, input: { userId: string }) {
  const self = actor.kind === "user" && actor.userId === input.userId;
  const by = self ? actor : requirePermission(actor, "admin:users");
  return inTransaction(db, async (tx) => {
    const target = await tx.user.findUnique({ where: { id: input.userId }, select: { id: true, email: true } });
    if (!target) throw new AppError("not_found", "No such user.");
    const { sessionVersion } = await bumpSessionVersion(tx, target.id);
    await recordAudit(tx, {
      actor: by,
      kind: "user_sessions_ended",
      after: { id: target.id, email: target.email, sessionVersion, by: self ? "self" : "admin" },
    });
    return { id: target.id, sessionVersion };
  });
}

/**
 * Sign-out of one session: its id is recorded as ended until the cookie would have expired, so a
 * copy of the cookie taken before sign-out is refused too. Entries past that are pruned here, so the
 * table holds only live cookies' ids.
 */
export async function recordSignOut(db: Db, token: unknown, maxAgeSeconds: number): Promise<boolean> {
  const claims = parseSessionClaims(token);
  if (!claims) return false;
  const expiresAt = new Date((claims.authTime + maxAgeSeconds) * 1000);
  await inTransaction(db, async (tx) => {
    await tx.endedSession.deleteMany({ where: { expiresAt: { lt: new Date() } } });
    if (expiresAt.getTime() <= Date.now()) return;
    // A user deleted since sign-in has no sessions left to end.
    const user = await tx.user.findUnique({ where: { id: claims.uid }, select: { id: true } });
    if (!user) return;
    await tx.endedSession.upsert({
      where: { sessionId: claims.sid },
      create: { sessionId: claims.sid, userId: claims.uid, expiresAt },
      update: {},
    });
  });
  return true;
}
