import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { sqlRows } from "@/lib/db/sql-rows";
import { allHours, figureRows, foldWhenDue, type ProducerFilter } from "@/lib/db/stat-figures";
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
  correctedCount: bigint;
  correctedMicros: bigint;
  reservedMicros: bigint;
};

// Held money is the open holds' amounts; settled and released money is what resolved holds
// booked (a partial settle releases its remainder); overage is the flagged excess beyond a hold,
// and a late charge a completion proved after its hold was released (DESIGN rule 18), decided or not.
// Corrections are the signed adjustments the provider's own figures posted (decision 073), and the
// charge is all four together (decision 077). All come from running totals (stat-figures.ts).
const SUMS = Prisma.sql`
  coalesce(sum(h.count) FILTER (WHERE h.hold_status = 'held'), 0)::bigint AS "heldCount",
  coalesce(sum(h.micros) FILTER (WHERE h.hold_status = 'held'), 0)::bigint AS "heldMicros",
  coalesce(sum(h.count) FILTER (WHERE h.hold_status = 'settled'), 0)::bigint AS "settledCount",
  coalesce(sum(h.count) FILTER (WHERE h.hold_status = 'settled' AND h.partial), 0)::bigint AS "partialCount",
  coalesce(sum(h.settled_micros), 0)::bigint AS "settledMicros",
  coalesce(sum(h.count) FILTER (WHERE h.hold_status = 'released'), 0)::bigint AS "releasedCount",
  coalesce(sum(h.released_micros), 0)::bigint AS "releasedMicros",
  coalesce(sum(h.micros), 0)::bigint AS "reservedMicros"`;

/**
 * The money beside the holds, one row per group: flagged overage (`o`) and charges after release
 * (`l`), and the provider's corrections (`a`).
 */
const BESIDE = Prisma.sql`
  coalesce(max(o.count), 0)::bigint AS "overageCount", coalesce(max(o.micros), 0)::bigint AS "overageMicros",
  coalesce(max(l.count), 0)::bigint AS "lateCount", coalesce(max(l.micros), 0)::bigint AS "lateMicros",
  coalesce(max(a.count), 0)::bigint AS "correctedCount", coalesce(max(a.micros), 0)::bigint AS "correctedMicros"`;

/** The all-hours rows of a figure beside the holds, summed per `dimensions` (currency first). */
function besideHolds(figure: "overage" | "late_charge" | "adjustment", producers: ProducerFilter, byModel: boolean) {
  const dimensions = byModel ? Prisma.sql`currency, provider, model` : Prisma.sql`currency`;
  return Prisma.sql`SELECT ${dimensions}, sum(count) AS count, sum(micros) AS micros
    FROM ${figureRows(figure, allHours, producers)} f GROUP BY ${dimensions}`;
}

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
    corrected: { count: toCount(row.correctedCount), micros: toTotal(row.correctedMicros) },
    /** What the provider charged as far as the ledger knows: settled + overage + after release + corrections. */
    chargedMicros: toTotal(row.settledMicros + row.overageMicros + row.lateMicros + row.correctedMicros),
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
      WITH o AS (${besideHolds("overage", producers, false)}), l AS (${besideHolds("late_charge", producers, false)}),
        a AS (${besideHolds("adjustment", producers, false)})
      SELECT h.currency, ${SUMS}, ${BESIDE}
      FROM ${figureRows("holds", undefined, producers)} h LEFT JOIN o ON o.currency = h.currency
      LEFT JOIN l ON l.currency = h.currency LEFT JOIN a ON a.currency = h.currency
      GROUP BY h.currency HAVING sum(h.count) > 0 ORDER BY h.currency`,
    ),
    sqlRows<Sums & { currency: string; provider: string; model: string }>(
      db,
      Prisma.sql`
      WITH o AS (${besideHolds("overage", producers, true)}), l AS (${besideHolds("late_charge", producers, true)}),
        a AS (${besideHolds("adjustment", producers, true)})
      SELECT h.currency, h.provider, h.model, ${SUMS}, ${BESIDE}
      FROM ${figureRows("holds", undefined, producers)} h
      LEFT JOIN o ON o.currency = h.currency AND o.provider = h.provider AND o.model = h.model
      LEFT JOIN l ON l.currency = h.currency AND l.provider = h.provider AND l.model = h.model
      LEFT JOIN a ON a.currency = h.currency AND a.provider = h.provider AND a.model = h.model
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
