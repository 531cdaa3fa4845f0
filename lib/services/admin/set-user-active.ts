import { recordAudit } from "@/lib/audit/writer";
import type { Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import type { Principal } from "@/lib/domain/principal";
import { AppError } from "@/lib/errors";
import { requirePermission } from "../access/actor";
import { bumpSessionVersion } from "../access/end-sessions";
import { lockActiveAdmins } from "./admin-guard";

/**
 * Deactivates or reactivates an account. A deactivated user's sessions end (their version is
 * bumped) and personal tokens stop working on their next request (they re-read the account). An admin cannot deactivate themself,
 * and the last active admin cannot be deactivated. Idempotent.
 */
export async function setUserActive(db: Db, actor: Principal, input: { userId: string; active: boolean }) {
  const admin = requirePermission(actor, "admin:users");
  if (!input.active && input.userId === admin.userId) {
    throw new AppError("forbidden", "You cannot deactivate your own account; another admin has to do that.");
  }
  return inTransaction(db, async (tx) => {
    const admins = await lockActiveAdmins(tx, admin);
    const target = await tx.user.findUnique({ where: { id: input.userId } });
    if (!target) throw new AppError("not_found", "No such user.");
    if (target.active === input.active) return { id: target.id, active: target.active };
    if (!input.active && admins.has(target.id) && admins.size <= 1) {
      throw new AppError("forbidden", "This is the last active admin; make someone else an admin first.");
    }
    const updated = await tx.user.update({
      where: { id: target.id },
      data: { active: input.active },
      select: { id: true, active: true },
    });
    // Reactivation does not bring back the sessions a deactivation ended.
    if (!input.active) await bumpSessionVersion(tx, target.id);
    await recordAudit(tx, {
      actor: admin,
      kind: input.active ? "user_reactivated" : "user_deactivated",
      before: { id: target.id, email: target.email, active: target.active },
      after: { id: target.id, email: target.email, active: input.active },
    });
    return updated;
  });
}
