import { recordAudit } from "@/lib/audit/writer";
import type { Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import type { Principal } from "@/lib/domain/principal";
import type { Role } from "@/lib/domain/roles";
import { AppError } from "@/lib/errors";
import type { SetUserRolesInput } from "@/lib/validation/admin";
import { requirePermission } from "../access/actor";
import { bumpSessionVersion } from "../access/end-sessions";
import { lockActiveAdmins } from "./admin-guard";

/**
 * Replaces a user's roles. An admin cannot take away their own admin role, and nobody can remove
 * the last active admin's: either would lock everyone out of user management.
 */
export async function setUserRoles(db: Db, actor: Principal, input: SetUserRolesInput) {
  const admin = requirePermission(actor, "admin:users");
  if (input.userId === admin.userId && !input.roles.includes("admin")) {
    throw new AppError("forbidden", "You cannot remove your own admin role; another admin has to do that.");
  }
  return inTransaction(db, async (tx) => {
    const admins = await lockActiveAdmins(tx, admin);
    // Serialises with a change of the person's producers (an admin cannot be limited to some).
    await tx.$queryRaw`SELECT id FROM users WHERE id = ${input.userId}::uuid FOR UPDATE`;
    const target = await tx.user.findUnique({ where: { id: input.userId } });
    if (!target) throw new AppError("not_found", "No such user.");
    if (input.roles.includes("admin") && target.producerScope.length > 0) {
      throw new AppError(
        "invalid_request",
        "An admin acts for every producer: clear this person's producer limit before making them an admin.",
      );
    }
    if (admins.has(target.id) && !input.roles.includes("admin") && admins.size <= 1) {
      throw new AppError("forbidden", "This is the last active admin; make someone else an admin first.");
    }
    const before = [...target.roles].sort();
    const after = [...input.roles].sort() as Role[];
    if (before.join() === after.join()) return { id: target.id, roles: target.roles };
    const updated = await tx.user.update({
      where: { id: target.id },
      data: { roles: after },
      select: { id: true, roles: true },
    });
    // Sessions re-read roles on every request anyway; ending them on a change gives the user a clean
    // start and cuts off any session an admin had doubts about. An admin only adding roles to
    // themself (they cannot remove their own admin role) is not signed out by it.
    if (target.id !== admin.userId) await bumpSessionVersion(tx, target.id);
    await recordAudit(tx, {
      actor: admin,
      kind: "user_roles_changed",
      before: { id: target.id, email: target.email, roles: before },
      after: { id: target.id, email: target.email, roles: after },
    });
    return updated;
  });
}
