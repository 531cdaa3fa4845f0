import { recordAudit } from "@/lib/audit/writer";
import { generatePassword, hashPassword } from "@/lib/auth/password";
import type { Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import type { Principal } from "@/lib/domain/principal";
import { AppError } from "@/lib/errors";
import type { ResetPasswordInput } from "@/lib/validation/admin";
import { requirePermission } from "../access/actor";
import { bumpSessionVersion } from "../access/end-sessions";

/**
 * Issues a new generated password, returned exactly once; the old one stops working at once, and so
 * does every session signed in with it. The user's personal tokens are revoked too unless the admin
 * asks to keep them: a reset usually follows a suspected compromise, and a token made by whoever
 * held the password must not outlive it (decision 053).
 */
export async function resetUserPassword(db: Db, actor: Principal, input: ResetPasswordInput) {
  const admin = requirePermission(actor, "admin:users");
  const password = generatePassword();
  const passwordHash = await hashPassword(password);
  return inTransaction(db, async (tx) => {
    const target = await tx.user.findUnique({ where: { id: input.userId }, select: { id: true, email: true } });
    if (!target) throw new AppError("not_found", "No such user.");
    await tx.user.update({ where: { id: target.id }, data: { passwordHash } });
    await bumpSessionVersion(tx, target.id);
    const revoked = !input.keepPersonalTokens
      ? (
          await tx.accessToken.updateMany({
            where: { userId: target.id, kind: "personal", revokedAt: null },
            data: { revokedAt: new Date() },
          })
        ).count
      : 0;
    await recordAudit(tx, {
      actor: admin,
      kind: "user_password_reset",
      after: { id: target.id, email: target.email, sessionsEnded: true, personalTokensRevoked: revoked },
    });
    return { user: target, password, personalTokensRevoked: revoked };
  });
}
