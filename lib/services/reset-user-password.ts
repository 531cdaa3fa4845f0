import { generatePassword, hashPassword } from "@/lib/auth/password";
import type { Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import type { Principal } from "@/lib/domain/principal";
import { AppError } from "@/lib/errors";
import { userIdSchema } from "@/lib/validation/admin";
import { requirePermission } from "./actor";
import { parseInput } from "./admin-guard";
import { recordAudit } from "./record-audit";

/** Issues a new generated password, returned exactly once; the old one stops working at once. */
export async function resetUserPassword(db: Db, actor: Principal, raw: { userId: string }) {
  const admin = requirePermission(actor, "admin:users");
  const input = parseInput(userIdSchema, raw);
  const password = generatePassword();
  const passwordHash = await hashPassword(password);
  return inTransaction(db, async (tx) => {
    const target = await tx.user.findUnique({ where: { id: input.userId }, select: { id: true, email: true } });
    if (!target) throw new AppError("not_found", "No such user.");
    await tx.user.update({ where: { id: target.id }, data: { passwordHash } });
    await recordAudit(tx, { actor: admin, kind: "user_password_reset", after: { id: target.id, email: target.email } });
    return { user: target, password };
  });
}
