import type { Db } from "@/lib/db/client";
import type { Principal } from "@/lib/domain/principal";
import { can } from "@/lib/domain/roles";
import { AppError } from "@/lib/errors";

export async function listUsers(db: Db, actor: Principal) {
  if (actor.kind !== "user" || !can(actor.roles, "admin:users")) {
    throw new AppError("forbidden", "Only admins can list users.");
  }
  return db.user.findMany({
    orderBy: { email: "asc" },
    select: { id: true, email: true, name: true, roles: true, producerScope: true, active: true, lastSignInAt: true },
  });
}
