import type { Db } from "@/lib/db/client";
import type { Principal } from "@/lib/domain/principal";
import { inProducerScope, scopeOf } from "@/lib/domain/producer-scope";
import type { ScopePause } from "@/lib/domain/scope-pauses";
import { requirePermission } from "../access/actor";

/**
 * The pauses running now, of either cause, as every page a pause affects shows them (decisions 064,
 * 070): a provider's or model's pause concerns everyone; a producer's only the people who see that
 * producer. A breaker pause past its end has ended on its own and is not shown.
 */
export async function listScopePauses(db: Db, actor: Principal, now = new Date()): Promise<ScopePause[]> {
  requirePermission(actor, "case:read");
  const rows = await db.pause.findMany({
    where: { resumedAt: null, OR: [{ until: null }, { until: { gt: now } }] },
    orderBy: [{ pausedAt: "asc" }, { kind: "asc" }, { value: "asc" }, { cause: "asc" }],
  });
  const scope = scopeOf(actor);
  return rows
    .filter((row) => row.kind !== "producer" || inProducerScope(scope, row.value))
    .map((row) => ({
      kind: row.kind,
      value: row.value,
      cause: row.cause,
      atProvider: row.atProvider,
      reason: row.reason,
      pausedBy: row.pausedByLabel,
      pausedAt: row.pausedAt,
      until: row.until,
    }));
}
