import type { Db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import type { UserActor } from "../access/actor";

/**
 * Locks every active admin's row, in id order so two admins acting at once queue instead of
 * deadlocking, and confirms the actor is still one of them. Two admins demoting each other at the
 * same moment therefore run one after the other, and the second sees the first's change.
 */
export async function lockActiveAdmins(tx: Db, actor: UserActor): Promise<Set<string>> {
  const rows = await tx.$queryRaw<{ id: string }[]>`
    SELECT id::text AS id FROM users WHERE active AND 'admin'::"Role" = ANY(roles) ORDER BY id FOR UPDATE`;
  const ids = new Set(rows.map((row) => row.id));
  if (!ids.has(actor.userId)) throw new AppError("forbidden", "Your account is no longer an active admin.");
  return ids;
}
