import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { sqlRows } from "@/lib/db/sql-rows";
import { figureRows, type ProducerFilter, producerIn } from "@/lib/db/stat-figures";
import { type MicrosTotal, toMicrosTotal } from "@/lib/domain/money";

export type HoldOpenFigure = { currency: string; count: number; micros: MicrosTotal };

/**
 * Rule 13's two flags as figures, for readers that have checked the caller's permission already:
 * resolved cases whose hold is still open ("needs a decision"), by currency, from the running
 * totals; and open escalated cases, counted in their own partial index. `producers` limits both to
 * those producers' cases (null: every producer).
 */
export async function caseFlagFigures(
  db: Db,
  producers: ProducerFilter = null,
): Promise<{ holdOpen: HoldOpenFigure[]; escalatedOpen: number }> {
  const [money, escalated] = await Promise.all([
    sqlRows<{ currency: string; count: bigint; micros: bigint }>(
      db,
      Prisma.sql`
      SELECT currency, sum(count)::bigint AS count, sum(micros)::bigint AS micros
      FROM ${figureRows("resolved_held", undefined, producers)} f GROUP BY currency HAVING sum(count) > 0 ORDER BY currency`,
    ),
    sqlRows<{ n: bigint }>(
      db,
      Prisma.sql`SELECT count(*) AS n FROM cases WHERE state <> 'resolved' AND escalated_at IS NOT NULL AND ${producerIn(producers)}`,
    ),
  ]);
  return {
    holdOpen: money.map((m) => ({ currency: m.currency, count: Number(m.count), micros: toMicrosTotal(m.micros) })),
    escalatedOpen: Number(escalated[0]?.n ?? 0),
  };
}
