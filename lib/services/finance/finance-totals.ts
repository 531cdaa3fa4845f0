import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { sqlRows } from "@/lib/db/sql-rows";
import { figureRows, foldWhenDue, type ProducerFilter } from "@/lib/db/stat-figures";
import type { Principal } from "@/lib/domain/principal";
import { requirePermission, visibleProducers } from "../access/actor";
import { toCount, toTotal } from "./finance-micros";

type Sums = {
  heldCount: bigint;
  heldMicros: bigint;
  settledCount: bigint;
  partialCount: bigint;
  settledMicros: bigint;
  releasedCount: bigint;
  releasedMicros: bigint;
  overageCount: bigint;
  overageMicros: bigint;
  lateCount: bigint;
  lateMicros: bigint;
  reservedMicros: bigint;
};

// Held money is the open holds' amounts; settled and released money is what resolved holds
// booked (a partial settle releases its remainder); overage is the flagged excess beyond a hold,
// and a late charge a completion proved after its hold was released (DESIGN rule 18), decided or not.
// Both come from running totals per currency, provider, model and status (stat-figures.ts).
const SUMS = Prisma.sql`
  coalesce(sum(h.count) FILTER (WHERE h.hold_status = 'held'), 0)::bigint AS "heldCount",
  coalesce(sum(h.micros) FILTER (WHERE h.hold_status = 'held'), 0)::bigint AS "heldMicros",
  coalesce(sum(h.count) FILTER (WHERE h.hold_status = 'settled'), 0)::bigint AS "settledCount",
  coalesce(sum(h.count) FILTER (WHERE h.hold_status = 'settled' AND h.partial), 0)::bigint AS "partialCount",
  coalesce(sum(h.settled_micros), 0)::bigint AS "settledMicros",
  coalesce(sum(h.count) FILTER (WHERE h.hold_status = 'released'), 0)::bigint AS "releasedCount",
  coalesce(sum(h.released_micros), 0)::bigint AS "releasedMicros",
  coalesce(sum(h.micros), 0)::bigint AS "reservedMicros"`;

/** The flagged money beyond the holds: overage (`o`) and charges after release (`l`), one row per group. */
const FLAGGED = Prisma.sql`
  coalesce(max(o.count), 0)::bigint AS "overageCount", coalesce(max(o.micros), 0)::bigint AS "overageMicros",
  coalesce(max(l.count), 0)::bigint AS "lateCount", coalesce(max(l.micros), 0)::bigint AS "lateMicros"`;

function shape(row: Sums) {
  return {
    held: { count: toCount(row.heldCount), micros: toTotal(row.heldMicros) },
    settled: {
      count: toCount(row.settledCount),
      partial: toCount(row.partialCount),
      micros: toTotal(row.settledMicros),
    },
    released: { count: toCount(row.releasedCount), micros: toTotal(row.releasedMicros) },
    overage: { count: toCount(row.overageCount), micros: toTotal(row.overageMicros) },
    lateCharged: { count: toCount(row.lateCount), micros: toTotal(row.lateMicros) },
    reservedMicros: toTotal(row.reservedMicros),
  };
}

export type StatusTotals = ReturnType<typeof shape>;

/**
 * Holds by status with money totals per currency, and the same split per provider and model; of
 * some producers only when `producers` names them.
 */
export async function getFinanceTotals(db: Db, actor: Principal, requested: ProducerFilter = null) {
  requirePermission(actor, "hold:read");
  const producers = visibleProducers(actor, requested);
  await foldWhenDue(db);
  const [byCurrency, byModel] = await Promise.all([
    sqlRows<Sums & { currency: string }>(
      db,
      Prisma.sql`
      WITH o AS (
        SELECT currency, sum(count) AS count, sum(micros) AS micros FROM ${figureRows("overage", undefined, producers)} f GROUP BY 1
      ), l AS (
        SELECT currency, sum(count) AS count, sum(micros) AS micros FROM ${figureRows("late_charge", undefined, producers)} f GROUP BY 1
      )
      SELECT h.currency, ${SUMS}, ${FLAGGED}
      FROM ${figureRows("holds", undefined, producers)} h LEFT JOIN o ON o.currency = h.currency
      LEFT JOIN l ON l.currency = h.currency
      GROUP BY h.currency HAVING sum(h.count) > 0 ORDER BY h.currency`,
    ),
    sqlRows<Sums & { currency: string; provider: string; model: string }>(
      db,
      Prisma.sql`
      WITH o AS (
        SELECT currency, provider, model, sum(count) AS count, sum(micros) AS micros
        FROM ${figureRows("overage", undefined, producers)} f GROUP BY 1, 2, 3
      ), l AS (
        SELECT currency, provider, model, sum(count) AS count, sum(micros) AS micros
        FROM ${figureRows("late_charge", undefined, producers)} f GROUP BY 1, 2, 3
      )
      SELECT h.currency, h.provider, h.model, ${SUMS}, ${FLAGGED}
      FROM ${figureRows("holds", undefined, producers)} h
      LEFT JOIN o ON o.currency = h.currency AND o.provider = h.provider AND o.model = h.model
      LEFT JOIN l ON l.currency = h.currency AND l.provider = h.provider AND l.model = h.model
      GROUP BY h.currency, h.provider, h.model HAVING sum(h.count) > 0
      ORDER BY h.currency, h.provider, h.model
      LIMIT 500`,
    ),
  ]);
  return {
    byCurrency: byCurrency.map((row) => ({ currency: row.currency, ...shape(row) })),
    byProviderModel: byModel.map((row) => ({
      currency: row.currency,
      provider: row.provider,
      model: row.model,
      ...shape(row),
    })),
  };
}
