import type { PrismaClient } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { figureRows } from "@/lib/db/stat-figures";

// The overview and finance figures as they were computed before the running totals: full scans of
// cases, holds and ledger entries. The services must answer exactly this. Each scan can be limited
// to some producers (null: all): a case's figures belong to cases.producer, a hold's and its ledger
// entries' to holds.producer.

export type Producers = string[] | null;

/** Rows of the given producers only, stated here on its own rather than borrowed from the services. */
function of(producers: Producers, column: string): Prisma.Sql {
  return producers ? Prisma.sql`${Prisma.raw(column)} = ANY(${producers}::text[])` : Prisma.sql`true`;
}

/**
 * `series: "cumulative"` reads the money-over-time series as the sum of everything booked before
 * the window plus each day's bookings, one pass instead of one per day: the same figure, for data
 * sets where the original query (kept as the default) takes minutes.
 */
export async function overviewByScan(
  db: PrismaClient,
  now: Date,
  alertSince: Date,
  options: { series: "original" | "cumulative"; producers?: Producers } = { series: "original" },
) {
  const producers = options.producers ?? null;
  const mine = of(producers, "producer");
  const [stages, money, buckets, recent, series] = await Promise.all([
    db.$queryRaw<{ stage: string; open: bigint; oldest: Date }[]>`
      SELECT stage::text, count(*) AS open, min(opened_at) AS oldest FROM cases
      WHERE state <> 'resolved' AND ${mine} GROUP BY stage ORDER BY stage`,
    db.$queryRaw<{ stage: string; currency: string; held: bigint }[]>`
      SELECT stage::text, currency, sum(held_micros)::bigint AS held FROM cases
      WHERE held_micros > 0 AND ${mine} GROUP BY stage, currency ORDER BY stage, currency`,
    db.$queryRaw<{ stage: string; bucket: number; n: bigint }[]>`
      SELECT stage::text, width_bucket(extract(epoch FROM ${now}::timestamptz - opened_at), ARRAY[3600, 21600, 86400, 259200]::float8[]) AS bucket,
             count(*) AS n
      FROM cases WHERE state <> 'resolved' AND ${mine} GROUP BY 1, 2 ORDER BY 1, 2`,
    db.$queryRaw<{ n: bigint }[]>`
      SELECT count(*) AS n FROM cases
      WHERE stage = 'submission_uncertain' AND state <> 'resolved' AND opened_at >= ${alertSince} AND ${mine}`,
    options.series === "original" ? seriesByScan(db, now, producers) : seriesByOnePass(db, now, producers),
  ]);
  return { stages, money, buckets, recent: Number(recent[0]?.n ?? 0), series };
}

type SeriesRow = { day: Date; currency: string; held: bigint };

function seriesByScan(db: PrismaClient, now: Date, producers: Producers) {
  return db.$queryRaw<SeriesRow[]>`
    SELECT day, h.currency, coalesce(sum(CASE WHEN e.kind = 'reserve' THEN e.amount_micros
                                        WHEN e.kind IN ('settle', 'release') THEN -e.amount_micros ELSE 0 END), 0)::bigint AS held
    FROM generate_series(date_trunc('day', ${now}::timestamptz) - interval '13 days', date_trunc('day', ${now}::timestamptz), interval '1 day') AS day
    CROSS JOIN (SELECT DISTINCT currency FROM holds WHERE ${of(producers, "producer")}) h
    LEFT JOIN holds ho ON ho.currency = h.currency AND ${of(producers, "ho.producer")}
    LEFT JOIN ledger_entries e ON e.hold_ref = ho.id AND e.created_at < day + interval '1 day'
    GROUP BY day, h.currency ORDER BY day, h.currency`;
}

function seriesByOnePass(db: PrismaClient, now: Date, producers: Producers) {
  return db.$queryRaw<SeriesRow[]>`
    WITH days AS (
      SELECT day FROM generate_series(date_trunc('day', ${now}::timestamptz) - interval '13 days',
                                      date_trunc('day', ${now}::timestamptz), interval '1 day') AS day
    ), booked AS MATERIALIZED (
      -- Every entry once: before the window, or in the window's day it was booked.
      SELECT h.currency,
             CASE WHEN e.created_at < (SELECT min(day) FROM days) THEN NULL
                  ELSE date_trunc('day', e.created_at) END AS day,
             sum(CASE WHEN e.kind = 'reserve' THEN e.amount_micros
                      WHEN e.kind IN ('settle', 'release') THEN -e.amount_micros ELSE 0 END) AS micros
      FROM ledger_entries e JOIN holds h ON h.id = e.hold_ref
      WHERE ${of(producers, "h.producer")}
      GROUP BY 1, 2
    )
    SELECT d.day, c.currency,
           (SELECT coalesce(sum(b.micros), 0) FROM booked b
            WHERE b.currency = c.currency AND (b.day IS NULL OR b.day <= d.day))::bigint AS held
    FROM days d CROSS JOIN (SELECT DISTINCT currency FROM holds WHERE ${of(producers, "producer")}) c
    ORDER BY d.day, c.currency`;
}

export function agingByScan(db: PrismaClient, now: Date, producers: Producers = null) {
  return db.$queryRaw<{ currency: string; bucket: number; count: bigint; micros: bigint; oldest: Date }[]>`
    SELECT h.currency, b.bucket, count(*) AS count, COALESCE(sum(h.amount_micros), 0)::bigint AS micros,
           min(h.created_at) AS oldest
    FROM holds h
    CROSS JOIN LATERAL (
      SELECT CASE
        WHEN ${now}::timestamptz - h.created_at < interval '1 hour' THEN 0
        WHEN ${now}::timestamptz - h.created_at < interval '1 day' THEN 1
        WHEN ${now}::timestamptz - h.created_at < interval '7 days' THEN 2
        WHEN ${now}::timestamptz - h.created_at < interval '30 days' THEN 3
        ELSE 4 END AS bucket
    ) b
    WHERE h.status = 'held' AND ${of(producers, "h.producer")}
    GROUP BY h.currency, b.bucket
    ORDER BY h.currency, b.bucket`;
}

export function exposureByScan(db: PrismaClient, producers: Producers = null) {
  return db.$queryRaw<{ currency: string; count: bigint; micros: bigint; oldest: Date }[]>`
    SELECT h.currency, count(*) AS count, COALESCE(sum(h.amount_micros), 0)::bigint AS micros,
           min(h.created_at) AS oldest
    FROM holds h JOIN cases c ON c.id = h.case_id AND c.attempt_ref = h.attempt_ref
    WHERE h.status = 'held' AND c.stage = 'submission_uncertain' AND c.state <> 'resolved'
      AND ${of(producers, "h.producer")}
    GROUP BY h.currency
    ORDER BY h.currency`;
}

type Sums = Record<string, bigint | string>;

export function totalsByScan(db: PrismaClient, producers: Producers = null) {
  return db.$queryRaw<Sums[]>`
    SELECT h.currency, op.provider, op.model,
      count(*) FILTER (WHERE h.status = 'held') AS "heldCount",
      COALESCE(sum(h.amount_micros) FILTER (WHERE h.status = 'held'), 0)::bigint AS "heldMicros",
      count(*) FILTER (WHERE h.status = 'settled') AS "settledCount",
      count(*) FILTER (WHERE h.status = 'settled' AND h.released_micros > 0) AS "partialCount",
      COALESCE(sum(h.settled_micros), 0)::bigint AS "settledMicros",
      count(*) FILTER (WHERE h.status = 'released') AS "releasedCount",
      COALESCE(sum(h.released_micros), 0)::bigint AS "releasedMicros",
      count(o.id) AS "overageCount",
      COALESCE(sum(o.amount_micros), 0)::bigint AS "overageMicros",
      count(l.id) AS "lateCount",
      COALESCE(sum(l.amount_micros), 0)::bigint AS "lateMicros",
      COALESCE(sum(j.count), 0)::bigint AS "correctedCount",
      COALESCE(sum(j.micros), 0)::bigint AS "correctedMicros",
      (COALESCE(sum(h.settled_micros), 0) + COALESCE(sum(o.amount_micros), 0) + COALESCE(sum(l.amount_micros), 0)
        + COALESCE(sum(j.micros), 0))::bigint AS "chargedMicros",
      COALESCE(sum(h.amount_micros), 0)::bigint AS "reservedMicros"
    FROM holds h JOIN attempts a ON a.id = h.attempt_ref JOIN operations op ON op.id = a.operation_ref
    LEFT JOIN ledger_entries o ON o.hold_ref = h.id AND o.kind = 'overage'
    LEFT JOIN ledger_entries l ON l.hold_ref = h.id AND l.kind = 'late_charge'
    LEFT JOIN LATERAL (
      SELECT count(*) AS count, sum(e.amount_micros) AS micros
      FROM ledger_entries e WHERE e.hold_ref = h.id AND e.kind = 'adjustment'
    ) j ON true
    WHERE ${of(producers, "h.producer")}
    GROUP BY h.currency, op.provider, op.model
    ORDER BY h.currency, op.provider, op.model`;
}

/** Every running total and pending delta, summed per figure and dimensions. */
export function runningTotals(db: PrismaClient) {
  return db.$queryRaw<unknown[]>`
    SELECT figure, stage::text, currency, provider, model, hold_status::text, "partial", hour, producer,
           sum(count)::text AS count, sum(micros)::text AS micros, sum(settled_micros)::text AS settled,
           sum(released_micros)::text AS released
    FROM (SELECT * FROM stat_totals UNION ALL SELECT * FROM stat_deltas) x
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9
    HAVING sum(count) <> 0 OR sum(micros) <> 0 OR sum(settled_micros) <> 0 OR sum(released_micros) <> 0
    ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9`;
}

/** Rule 13 from its definition: resolved cases with a hold still held, whatever cases.held_micros says. */
export function holdOpenByScan(db: PrismaClient, producers: Producers = null) {
  return db.$queryRaw<{ currency: string; count: bigint; micros: bigint }[]>`
    SELECT c.currency, count(DISTINCT c.id) AS count, sum(h.amount_micros)::bigint AS micros
    FROM cases c JOIN holds h ON h.case_id = c.id
    WHERE c.state = 'resolved' AND h.status = 'held' AND ${of(producers, "c.producer")} GROUP BY c.currency ORDER BY c.currency`;
}

/** The provider's corrections per UTC day of their booking, from the entries themselves (decision 077). */
export function correctionsByDayScan(db: PrismaClient, producers: Producers = null) {
  return db.$queryRaw<
    { day: Date; currency: string; provider: string; model: string; count: bigint; micros: bigint }[]
  >`
    SELECT date_trunc('day', e.created_at, 'UTC') AS day, h.currency, op.provider, op.model, count(*) AS count,
           sum(e.amount_micros)::bigint AS micros
    FROM ledger_entries e JOIN holds h ON h.id = e.hold_ref JOIN attempts a ON a.id = h.attempt_ref
      JOIN operations op ON op.id = a.operation_ref
    WHERE e.kind = 'adjustment' AND ${of(producers, "h.producer")}
    GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4`;
}

/** The same from the running totals' hourly rows, whole hours summed into days. */
export function correctionsByDayServed(db: PrismaClient, producers: Producers = null) {
  return db.$queryRaw<
    { day: Date; currency: string; provider: string; model: string; count: bigint; micros: bigint }[]
  >`
    SELECT date_trunc('day', hour, 'UTC') AS day, currency, provider, model, sum(count)::bigint AS count,
           sum(micros)::bigint AS micros
    FROM ${figureRows("adjustment", Prisma.sql`hour IS NOT NULL`, producers)} f
    GROUP BY 1, 2, 3, 4 HAVING sum(count) <> 0 OR sum(micros) <> 0 ORDER BY 1, 2, 3, 4`;
}
