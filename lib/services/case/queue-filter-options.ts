import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { producersWithOperations } from "@/lib/db/producers-with-operations";
import { sqlRows } from "@/lib/db/sql-rows";
import { figureRows, foldWhenDue } from "@/lib/db/stat-figures";
import type { Principal } from "@/lib/domain/principal";
import { scopeOf } from "@/lib/domain/producer-scope";
import { requirePermission } from "../access/actor";
import { assignableWhere } from "../admin/list-assignable-users";

export type QueueFilterOptions = {
  producers: string[];
  providers: { provider: string; models: string[] }[];
  currencies: string[];
  assignees: { id: string; name: string }[];
};

/**
 * What the queue's pickers offer, without scanning cases: producers that sent operations (a skip
 * scan of an index), providers, models and currencies from the holds' running totals, and the people
 * a case can be assigned to.
 */
export async function queueFilterOptions(db: Db, actor: Principal): Promise<QueueFilterOptions> {
  requirePermission(actor, "case:read");
  const scope = scopeOf(actor);
  // Like the overview: past a few thousand pending deltas, fold them before summing.
  await foldWhenDue(db);
  const [producers, kinds, assignees] = await Promise.all([
    producersWithOperations(db, { within: scope, limit: 500 }),
    sqlRows<{ provider: string; model: string; currency: string }>(
      db,
      Prisma.sql`SELECT DISTINCT provider, model, currency FROM ${figureRows("holds", undefined, scope)} f
                 WHERE provider IS NOT NULL ORDER BY provider, model`,
    ),
    db.user.findMany({
      where: assignableWhere(scope),
      orderBy: { name: "asc" },
      select: { id: true, name: true },
    }),
  ]);
  const providers = new Map<string, Set<string>>();
  for (const row of kinds) {
    const models = providers.get(row.provider) ?? new Set<string>();
    if (row.model) models.add(row.model);
    providers.set(row.provider, models);
  }
  return {
    producers,
    providers: [...providers].map(([provider, models]) => ({ provider, models: [...models].sort() })),
    currencies: [...new Set(kinds.map((row) => row.currency).filter(Boolean))].sort(),
    assignees,
  };
}
