import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { sqlRows } from "@/lib/db/sql-rows";
import { allHours, figureRows, foldWhenDue, type ProducerFilter, producerIn } from "@/lib/db/stat-figures";
import type { Principal } from "@/lib/domain/principal";
import { requirePermission, visibleProducers } from "../access/actor";
import { toCount, toTotal } from "./finance-micros";

type Row = { currency: string; count: bigint; micros: bigint; oldest: Date | null };

/**
 * Exposure: money held for a submission nobody can yet say was accepted or not (rule 6 keeps it
 * held). Only the hold of the case's current attempt counts, and only while the case is open in
 * `submission_uncertain`; holds of earlier episodes are ordinary held money. Count and sum are
 * running totals (stat-figures.ts), kept by the UTC hour each hold was reserved: the oldest is in the
 * first hour that still has exposure, read from that hour's holds. `producers` limits it to those
 * producers' holds (null: every producer).
 */
export async function getExposure(db: Db, actor: Principal, requested: ProducerFilter = null) {
  requirePermission(actor, "hold:read");
  const producers = visibleProducers(actor, requested);
  await foldWhenDue(db);
  const totals = await sqlRows<Omit<Row, "oldest"> & { hour: Date }>(
    db,
    Prisma.sql`
    WITH totals AS (
      SELECT currency, sum(count)::bigint AS count, sum(micros)::bigint AS micros
      FROM ${figureRows("exposure", allHours, producers)} f GROUP BY currency HAVING sum(count) > 0
    )
    SELECT t.currency, t.count, t.micros, o.hour
    FROM totals t CROSS JOIN LATERAL (
      SELECT hour FROM ${figureRows("exposure", Prisma.sql`hour IS NOT NULL`, producers)} f
      WHERE f.currency = t.currency GROUP BY hour HAVING sum(count) > 0 ORDER BY hour LIMIT 1
    ) o
    ORDER BY t.currency`,
  );
  if (totals.length === 0) return [];
  // Then the holds of those hours, each hour named outright so the planner sees how few rows it reads.
  const oldest = await sqlRows<{ currency: string; oldest: Date }>(
    db,
    Prisma.sql`
    SELECT h.currency, min(h.created_at) AS oldest
    FROM holds h JOIN cases c ON c.id = h.case_id AND c.attempt_ref = h.attempt_ref
    WHERE h.status = 'held' AND c.stage = 'submission_uncertain' AND c.state <> 'resolved'
      AND ${producerIn(producers, Prisma.sql`h.producer`)} AND (${Prisma.join(
        totals.map(
          (t) =>
            Prisma.sql`(h.currency = ${t.currency} AND h.created_at >= ${t.hour} AND h.created_at < ${new Date(t.hour.getTime() + 3_600_000)})`,
        ),
        " OR ",
      )})
    GROUP BY h.currency`,
  );
  const rows: Row[] = totals.map((t) => ({
    ...t,
    oldest: oldest.find((o) => o.currency === t.currency)?.oldest ?? null,
  }));
  return rows.flatMap((row) =>
    row.oldest
      ? [
          {
            currency: row.currency,
            count: toCount(row.count),
            micros: toTotal(row.micros),
            oldestAt: row.oldest.toISOString(),
          },
        ]
      : [],
  );
}
