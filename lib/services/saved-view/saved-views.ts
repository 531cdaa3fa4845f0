import type { Db } from "@/lib/db/client";
import type { Principal } from "@/lib/domain/principal";
import { AppError } from "@/lib/errors";
import type { SaveViewInput } from "@/lib/validation/saved-views";
import { requirePermission } from "../access/actor";

/** Enough for every view a person keeps coming back to; past it, one goes before another comes. */
export const SAVED_VIEWS_MAX = 30;

export type SavedView = { id: string; name: string; query: string };

/** A person's own saved queue views, by name. Nobody else's are ever read. */
export async function listSavedViews(db: Db, actor: Principal): Promise<SavedView[]> {
  const user = requirePermission(actor, "case:read");
  return db.savedView.findMany({
    where: { userId: user.userId },
    orderBy: { name: "asc" },
    select: { id: true, name: true, query: true },
  });
}

/**
 * Saves the queue's filter under a name (the same name replaces its view). The query arrives in the
 * queue's own words (saveViewSchema), so a saved view is always one the queue understands.
 */
export async function saveView(db: Db, actor: Principal, input: SaveViewInput): Promise<SavedView> {
  const user = requirePermission(actor, "case:read");
  const text = input.query;
  return db.$transaction(async (tx) => {
    const existing = await tx.savedView.count({ where: { userId: user.userId, name: { not: input.name } } });
    if (existing >= SAVED_VIEWS_MAX)
      throw new AppError("conflict", `You have ${SAVED_VIEWS_MAX} saved views; delete one to save another.`);
    return tx.savedView.upsert({
      where: { userId_name: { userId: user.userId, name: input.name } },
      create: { userId: user.userId, name: input.name, query: text },
      update: { query: text },
      select: { id: true, name: true, query: true },
    });
  });
}

export async function deleteView(db: Db, actor: Principal, id: string): Promise<{ id: string }> {
  const user = requirePermission(actor, "case:read");
  const { count } = await db.savedView.deleteMany({ where: { id, userId: user.userId } });
  if (count === 0) throw new AppError("not_found", "No such saved view.");
  return { id };
}
