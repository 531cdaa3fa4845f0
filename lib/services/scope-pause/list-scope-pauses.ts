import type { Db } from "@/lib/db/client";
import type { Principal } from "@/lib/domain/principal";
import { inProducerScope, scopeOf } from "@/lib/domain/producer-scope";
import type { ScopePause } from "@/lib/domain/scope-pauses";
import { requirePermission } from "../access/actor";

/**
 * The pauses running now, as every page a pause affects shows them (decision 064): a provider's or
 * model's pause concerns everyone; a producer's only the people who see that producer.
 */
export async function listScopePauses(db: Db, actor: Principal): Promise<ScopePause[]> {
  requirePermission(actor, "case:read");
  const rows = await db.scopePause.findMany({ orderBy: [{ pausedAt: "asc" }, { kind: "asc" }, { value: "asc" }] });
  const scope = scopeOf(actor);
  return rows
    .filter((row) => row.kind !== "producer" || inProducerScope(scope, row.value))
    .map((row) => ({
      kind: row.kind,
      value: row.value,
      reason: row.reason,
      pausedBy: row.pausedByLabel,
      pausedAt: row.pausedAt,
    }));
}
