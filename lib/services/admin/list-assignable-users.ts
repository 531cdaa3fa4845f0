import type { Db } from "@/lib/db/client";
import type { Principal } from "@/lib/domain/principal";
import { requirePermission } from "../access/actor";

/** Active reviewers, the people a case can be assigned to. */
export async function listAssignableUsers(db: Db, actor: Principal) {
  requirePermission(actor, "case:assign");
  return db.user.findMany({
    where: { active: true, roles: { has: "reviewer" } },
    orderBy: { name: "asc" },
    select: { id: true, name: true, email: true },
  });
}
