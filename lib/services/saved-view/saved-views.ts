import type { Db } from "@/lib/db/client";
import type { Principal } from "@/lib/domain/principal";
import { inProducerScope, scopeOf } from "@/lib/domain/producer-scope";
import { AppError } from "@/lib/errors";
import type { SaveViewInput } from "@/lib/validation/saved-views";
import { requirePermission } from "../access/actor";

/** Enough for every view a person keeps coming back to; past it, one goes before another comes. */
export const SAVED_VIEWS_MAX = 30;

/** A view of one's own (`owner` null), or one a teammate shared (read-only, with their name). */
export type SavedView = { id: string; name: string; query: string; shared: boolean; owner: string | null };

const columns = { id: true, name: true, query: true, shared: true } as const;

/**
 * A person's own saved queue views, by name, then the views teammates shared (decision 063). A
 * shared view naming a producer outside the reader's producers is not offered: it would open on
 * cases the reader may not see (and its name may say whose they are). Any other shared view opens
 * within the reader's own producers, as every queue view does.
 */
export async function listSavedViews(db: Db, actor: Principal): Promise<SavedView[]> {
  const user = requirePermission(actor, "case:read");
  const [own, shared] = await Promise.all([
    db.savedView.findMany({ where: { userId: user.userId }, orderBy: { name: "asc" }, select: columns }),
    db.savedView.findMany({
      where: { shared: true, userId: { not: user.userId }, user: { active: true } },
      orderBy: [{ name: "asc" }, { id: "asc" }],
      select: { ...columns, user: { select: { name: true } } },
      take: 100,
    }),
  ]);
  const scope = scopeOf(actor);
  const visible = shared.filter((view) => {
    const producer = new URLSearchParams(view.query).get("producer");
    return !producer || inProducerScope(scope, producer);
  });
  return [
    ...own.map((view) => ({ ...view, owner: null })),
    ...visible.map(({ user: owner, ...view }) => ({ ...view, owner: owner.name })),
  ];
}

/**
 * Saves the queue's filter under a name (the same name replaces its view). The query arrives in the
 * queue's own words (saveViewSchema), so a saved view is always one the queue understands.
 */
export async function saveView(db: Db, actor: Principal, input: SaveViewInput): Promise<SavedView> {
  const user = requirePermission(actor, "case:read");
  const text = input.query;
  const saved = await db.$transaction(async (tx) => {
    const existing = await tx.savedView.count({ where: { userId: user.userId, name: { not: input.name } } });
    if (existing >= SAVED_VIEWS_MAX)
      throw new AppError("conflict", `You have ${SAVED_VIEWS_MAX} saved views; delete one to save another.`);
    return tx.savedView.upsert({
      where: { userId_name: { userId: user.userId, name: input.name } },
      create: { userId: user.userId, name: input.name, query: text },
      update: { query: text },
      select: columns,
    });
  });
  return { ...saved, owner: null };
}

/** Shares one's own view with the team, or stops sharing it; nobody changes another person's view. */
export async function setViewShared(
  db: Db,
  actor: Principal,
  input: { id: string; shared: boolean },
): Promise<{ id: string; shared: boolean }> {
  const user = requirePermission(actor, "case:read");
  const { count } = await db.savedView.updateMany({
    where: { id: input.id, userId: user.userId },
    data: { shared: input.shared },
  });
  if (count === 0) throw new AppError("not_found", "No such saved view of yours.");
  return input;
}

export async function deleteView(db: Db, actor: Principal, id: string): Promise<{ id: string }> {
  const user = requirePermission(actor, "case:read");
  const { count } = await db.savedView.deleteMany({ where: { id, userId: user.userId } });
  if (count === 0) throw new AppError("not_found", "No such saved view.");
  return { id };
}
