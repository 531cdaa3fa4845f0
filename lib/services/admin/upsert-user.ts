import { hashPassword } from "@/lib/auth/password";
import type { Db } from "@/lib/db/client";
import type { Role } from "@/lib/domain/roles";

export type UpsertUserInput = { email: string; name?: string; roles: Role[]; password: string };

/** Creates the account or, when the email exists, replaces its roles and password and reactivates it. */
export async function upsertUser(db: Db, input: UpsertUserInput) {
  const email = input.email.trim().toLowerCase();
  const passwordHash = await hashPassword(input.password);
  const roles = [...new Set(input.roles)];
  const name = input.name ?? email.split("@")[0] ?? email;
  return db.user.upsert({
    where: { email },
    create: { email, name, roles, passwordHash },
    update: { roles, passwordHash, active: true, ...(input.name ? { name } : {}) },
    select: { id: true, email: true, name: true, roles: true },
  });
}
