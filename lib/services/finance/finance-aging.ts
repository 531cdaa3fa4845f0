import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { sqlRows } from "@/lib/db/sql-rows";
import {
  allHours,
  figureRows,
  foldWhenDue,
  hoursFrom,
  type ProducerFilter,
  producerIn,
  utcHourOf,
} from "@/lib/db/stat-figures";
import type { Principal } from "@/lib/domain/principal";
import { requirePermission, visibleProducers } from "../access/actor";
import { toCount, toTotal } from "./finance-micros";

/** Upper bounds in seconds; the last bucket is open-ended. */
export const AGE_BUCKETS = [
  { key: "lt_1h", label: "Under 1 hour", maxSeconds: 3_600 },
  { key: "lt_1d", label: "1 to 24 hours", maxSeconds: 86_400 },
  { key: "lt_7d", label: "1 to 7 days", maxSeconds: 7 * 86_400 },
  { key: "lt_30d", label: "7 to 30 days", maxSeconds: 30 * 86_400 },
  { key: "gte_30d", label: "30 days or more", maxSeconds: null },
] as const;
export type AgeBucketKey = (typeof AGE_BUCKETS)[number]["key"];

/** Per currency: all open holds, then those reserved at or before each bucket's end (g0..g3). */
type Row = {
  currency: string;
  n: bigint;
  m: bigint;
  n0: bigint;
  m0: bigint;
  n1: bigint;
  m1: bigint;
  n2: bigint;
  m2: bigint;
  n3: bigint;
  m3: bigint;
  oldest: (Date | null)[];
};

/**
 * Money still held, per currency and age since the hold was reserved: old holds need a decision.
 * Counts and sums come from the open holds' running totals (stat-figures.ts): the total, less the
 * hours since a bucket's end, plus the holds of the hour that contains it; each bucket's oldest
 * hold is one index lookup. `producers` limits it to those producers' holds (null: every producer).
 */
export async function getHeldByAge(db: Db, actor: Principal, now = new Date(), requested: ProducerFilter = null) {
  requirePermission(actor, "hold:read");
  const producers = visibleProducers(actor, requested);
  const mine = producerIn(producers);
  await foldWhenDue(db);
  const ends = AGE_BUCKETS.flatMap((b) =>
    b.maxSeconds === null ? [] : [new Date(now.getTime() - b.maxSeconds * 1000)],
  );
  const hours = ends.map(utcHourOf);
  const rows = await sqlRows<Row>(
    db,
    Prisma.sql`
    WITH totals AS (
      SELECT currency, sum(count) AS n, sum(micros) AS m FROM ${figureRows("held_holds", allHours, producers)} f GROUP BY currency
    ), recent AS (
      -- Open holds reserved in or after the hour that contains each bucket's end...
      SELECT currency,
             sum(count) FILTER (WHERE hour >= ${hours[0]}) AS n0, sum(micros) FILTER (WHERE hour >= ${hours[0]}) AS m0,
             sum(count) FILTER (WHERE hour >= ${hours[1]}) AS n1, sum(micros) FILTER (WHERE hour >= ${hours[1]}) AS m1,
             sum(count) FILTER (WHERE hour >= ${hours[2]}) AS n2, sum(micros) FILTER (WHERE hour >= ${hours[2]}) AS m2,
             sum(count) FILTER (WHERE hour >= ${hours[3]}) AS n3, sum(micros) FILTER (WHERE hour >= ${hours[3]}) AS m3
      FROM ${figureRows("held_holds", hoursFrom(hours[3] ?? now), producers)} f GROUP BY currency
    ), edges AS (
      -- ...less those reserved in that hour up to the end itself, which are old enough already.
      SELECT currency,
             count(*) FILTER (WHERE created_at >= ${hours[0]} AND created_at <= ${ends[0]}) AS n0,
             sum(amount_micros) FILTER (WHERE created_at >= ${hours[0]} AND created_at <= ${ends[0]}) AS m0,
             count(*) FILTER (WHERE created_at >= ${hours[1]} AND created_at <= ${ends[1]}) AS n1,
             sum(amount_micros) FILTER (WHERE created_at >= ${hours[1]} AND created_at <= ${ends[1]}) AS m1,
             count(*) FILTER (WHERE created_at >= ${hours[2]} AND created_at <= ${ends[2]}) AS n2,
             sum(amount_micros) FILTER (WHERE created_at >= ${hours[2]} AND created_at <= ${ends[2]}) AS m2,
             count(*) FILTER (WHERE created_at >= ${hours[3]} AND created_at <= ${ends[3]}) AS n3,
             sum(amount_micros) FILTER (WHERE created_at >= ${hours[3]} AND created_at <= ${ends[3]}) AS m3
      FROM holds
      WHERE status = 'held' AND ${mine} AND (
        (created_at >= ${hours[0]} AND created_at <= ${ends[0]}) OR
        (created_at >= ${hours[1]} AND created_at <= ${ends[1]}) OR
        (created_at >= ${hours[2]} AND created_at <= ${ends[2]}) OR
        (created_at >= ${hours[3]} AND created_at <= ${ends[3]}))
      GROUP BY currency
    ), bounds AS (
      -- Bucket k holds what was reserved after bounds[k + 1] and at or before bounds[k].
      SELECT ARRAY['infinity'::timestamptz, ${ends[0]}, ${ends[1]}, ${ends[2]}, ${ends[3]}, '-infinity'] AS at
    )
    SELECT t.currency, t.n::bigint, t.m::bigint,
           (t.n - coalesce(r.n0, 0) + coalesce(e.n0, 0))::bigint AS n0, (t.m - coalesce(r.m0, 0) + coalesce(e.m0, 0))::bigint AS m0,
           (t.n - coalesce(r.n1, 0) + coalesce(e.n1, 0))::bigint AS n1, (t.m - coalesce(r.m1, 0) + coalesce(e.m1, 0))::bigint AS m1,
           (t.n - coalesce(r.n2, 0) + coalesce(e.n2, 0))::bigint AS n2, (t.m - coalesce(r.m2, 0) + coalesce(e.m2, 0))::bigint AS m2,
           (t.n - coalesce(r.n3, 0) + coalesce(e.n3, 0))::bigint AS n3, (t.m - coalesce(r.m3, 0) + coalesce(e.m3, 0))::bigint AS m3,
           ARRAY(SELECT (SELECT min(h.created_at) FROM holds h
                         WHERE h.status = 'held' AND h.currency = t.currency AND ${producerIn(producers, Prisma.sql`h.producer`)}
                           AND h.created_at > b.at[k + 1] AND h.created_at <= b.at[k])
                 FROM bounds b CROSS JOIN generate_series(1, 5) AS k ORDER BY k) AS oldest
    FROM totals t LEFT JOIN recent r ON r.currency = t.currency LEFT JOIN edges e ON e.currency = t.currency
    WHERE t.n > 0
    ORDER BY t.currency`,
  );
  return rows.flatMap((row) => {
    const counts = [row.n, row.n0, row.n1, row.n2, row.n3, 0n].map(Number);
    const micros = [row.m, row.m0, row.m1, row.m2, row.m3, 0n];
    return AGE_BUCKETS.flatMap((bucket, k) => {
      const count = (counts[k] ?? 0) - (counts[k + 1] ?? 0);
      const oldest = row.oldest[k];
      if (count <= 0 || !oldest) return [];
      return [
        {
          currency: row.currency,
          bucket: bucket.key,
          label: bucket.label,
          count: toCount(count),
          micros: toTotal((micros[k] ?? 0n) - (micros[k + 1] ?? 0n)),
          oldestAt: oldest.toISOString(),
        },
      ];
    });
  });
}
