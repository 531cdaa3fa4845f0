import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import type { Principal } from "@/lib/domain/principal";
import { requirePermission } from "./actor";
import { toCount, toMicros } from "./finance-micros";

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
  reservedMicros: bigint;
};

// Held money is the open holds' amounts; settled and released money is what resolved holds
// booked (a partial settle releases its remainder); overage is the flagged excess beyond a hold.
// At most one overage entry exists per hold (unique (hold, kind)), so the join never doubles rows.
const SUMS = Prisma.sql`
  count(*) FILTER (WHERE h.status = 'held') AS "heldCount",
  COALESCE(sum(h.amount_micros) FILTER (WHERE h.status = 'held'), 0)::bigint AS "heldMicros",
  count(*) FILTER (WHERE h.status = 'settled') AS "settledCount",
  count(*) FILTER (WHERE h.status = 'settled' AND h.released_micros > 0) AS "partialCount",
  COALESCE(sum(h.settled_micros), 0)::bigint AS "settledMicros",
  count(*) FILTER (WHERE h.status = 'released') AS "releasedCount",
  COALESCE(sum(h.released_micros), 0)::bigint AS "releasedMicros",
  count(o.id) AS "overageCount",
  COALESCE(sum(o.amount_micros), 0)::bigint AS "overageMicros",
  COALESCE(sum(h.amount_micros), 0)::bigint AS "reservedMicros"`;

function shape(row: Sums) {
  return {
    held: { count: toCount(row.heldCount), micros: toMicros(row.heldMicros) },
    settled: {
      count: toCount(row.settledCount),
      partial: toCount(row.partialCount),
      micros: toMicros(row.settledMicros),
    },
    released: { count: toCount(row.releasedCount), micros: toMicros(row.releasedMicros) },
    overage: { count: toCount(row.overageCount), micros: toMicros(row.overageMicros) },
    reservedMicros: toMicros(row.reservedMicros),
  };
}

export type StatusTotals = ReturnType<typeof shape>;

/** Holds by status with money totals per currency, and the same split per provider and model. */
export async function getFinanceTotals(db: Db, actor: Principal) {
  requirePermission(actor, "hold:read");
  const [byCurrency, byModel] = await Promise.all([
    db.$queryRaw<(Sums & { currency: string })[]>`
      SELECT h.currency, ${SUMS}
      FROM holds h LEFT JOIN ledger_entries o ON o.hold_ref = h.id AND o.kind = 'overage'
      GROUP BY h.currency ORDER BY h.currency`,
    db.$queryRaw<(Sums & { currency: string; provider: string; model: string })[]>`
      SELECT h.currency, c.provider, c.model, ${SUMS}
      FROM holds h JOIN cases c ON c.id = h.case_id
      LEFT JOIN ledger_entries o ON o.hold_ref = h.id AND o.kind = 'overage'
      GROUP BY h.currency, c.provider, c.model
      ORDER BY h.currency, c.provider, c.model
      LIMIT 500`,
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
