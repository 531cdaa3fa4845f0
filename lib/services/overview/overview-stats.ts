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
import { toMicrosTotal } from "@/lib/domain/money";
import { AGE_BUCKET_ENDS_SECONDS, AGE_BUCKETS } from "@/lib/domain/overview-age-buckets";
import type { Principal } from "@/lib/domain/principal";
import { requirePermission, visibleProducers } from "../access/actor";
import { caseFlagFigures } from "../case/case-flags";
import { openLateChargeFigures } from "../hold/late-charge-figures";
import { producerNotToldCount } from "../notification/producer-not-told";
import { inFlightPermits } from "../permit/in-flight";
import { pausedProviders } from "../provider-breaker/provider-breakers";
import { retentionPolicyView } from "../retention/retention-policy";
import { outputsExpiringSoon } from "./overview-expiring";

export { AGE_BUCKETS };

type StageRow = { stage: string; open: bigint; g0: bigint; g1: bigint; g2: bigint; g3: bigint; oldest: Date | null };
type MoneyRow = { stage: string; currency: string; held: bigint };
type LatencyRow = { p50: number | null; p90: number | null; n: bigint };
type SeriesRow = { day: Date; currency: string; held: bigint };

const STAGE_ORDER = ["submission_uncertain", "polling", "delivery", "generation_failed"];

/**
 * What an operator looks at first (DESIGN section 10). Counts and money come from the running
 * totals (stat-figures.ts), so the page costs the same at a million cases as at a hundred; only
 * the rows of a few partial hours and the last day's decisions are read directly. `producers`
 * limits every figure to those producers' cases (null: every producer), the last day's review
 * latency and worker events too: a person limited to some producers sees no other producer's work
 * in any of them (decision 055).
 */
export async function overviewStats(
  db: Db,
  actor: Principal,
  options: { alertWindowMinutes: number; alertThreshold: number; now?: Date; producers?: ProducerFilter },
) {
  requirePermission(actor, "case:read");
  await foldWhenDue(db);
  const now = options.now ?? new Date();
  const producers = visibleProducers(actor, options.producers ?? null);
  const mine = producerIn(producers);
  // Decisions and audit events name their case; only a producer list reads its producer.
  const ofMyCase = (column: Prisma.Sql) =>
    producers
      ? Prisma.sql`AND EXISTS (SELECT 1 FROM cases c WHERE c.id = ${column} AND ${producerIn(producers, Prisma.sql`c.producer`)})`
      : Prisma.empty;
  const since = new Date(now.getTime() - 24 * 3600 * 1000);
  const alertSince = new Date(now.getTime() - options.alertWindowMinutes * 60_000);
  // A case opened at or before ends[k] is old enough for bucket k + 1 (width_bucket's edges).
  const ends = AGE_BUCKET_ENDS_SECONDS.map((s) => new Date(now.getTime() - s * 1000));
  const hours = ends.map(utcHourOf);
  const [
    stages,
    money,
    latency,
    events,
    recentUncertain,
    series,
    flags,
    inFlight,
    expiring,
    retention,
    paused,
    notTold,
    lateCharges,
  ] = await Promise.all([
    sqlRows<StageRow>(
      db,
      Prisma.sql`
      WITH totals AS (
        SELECT stage, sum(count)::bigint AS open FROM ${figureRows("open_cases", allHours, producers)} f GROUP BY stage
      ), recent AS (
        -- Open cases opened in or after the hour that contains each bucket's end...
        SELECT stage,
               coalesce(sum(count) FILTER (WHERE hour >= ${hours[0]}), 0)::bigint AS r0,
               coalesce(sum(count) FILTER (WHERE hour >= ${hours[1]}), 0)::bigint AS r1,
               coalesce(sum(count) FILTER (WHERE hour >= ${hours[2]}), 0)::bigint AS r2,
               coalesce(sum(count) FILTER (WHERE hour >= ${hours[3]}), 0)::bigint AS r3
        FROM ${figureRows("open_cases", hoursFrom(hours[3] ?? now), producers)} f GROUP BY stage
      ), edges AS (
        -- ...less those opened in that hour up to the end itself, which are old enough already.
        SELECT stage,
               count(*) FILTER (WHERE opened_at >= ${hours[0]} AND opened_at <= ${ends[0]}) AS e0,
               count(*) FILTER (WHERE opened_at >= ${hours[1]} AND opened_at <= ${ends[1]}) AS e1,
               count(*) FILTER (WHERE opened_at >= ${hours[2]} AND opened_at <= ${ends[2]}) AS e2,
               count(*) FILTER (WHERE opened_at >= ${hours[3]} AND opened_at <= ${ends[3]}) AS e3
        FROM cases
        WHERE state <> 'resolved' AND ${mine} AND (
          (opened_at >= ${hours[0]} AND opened_at <= ${ends[0]}) OR
          (opened_at >= ${hours[1]} AND opened_at <= ${ends[1]}) OR
          (opened_at >= ${hours[2]} AND opened_at <= ${ends[2]}) OR
          (opened_at >= ${hours[3]} AND opened_at <= ${ends[3]}))
        GROUP BY stage
      )
      SELECT t.stage::text, t.open,
             t.open - coalesce(r.r0, 0) + coalesce(e.e0, 0) AS g0, t.open - coalesce(r.r1, 0) + coalesce(e.e1, 0) AS g1,
             t.open - coalesce(r.r2, 0) + coalesce(e.e2, 0) AS g2, t.open - coalesce(r.r3, 0) + coalesce(e.e3, 0) AS g3,
             (SELECT min(c.opened_at) FROM cases c WHERE c.stage = t.stage AND c.state <> 'resolved' AND ${producerIn(producers, Prisma.sql`c.producer`)})
               AS oldest
      FROM totals t LEFT JOIN recent r ON r.stage = t.stage LEFT JOIN edges e ON e.stage = t.stage
      WHERE t.open > 0`,
    ),
    sqlRows<MoneyRow>(
      db,
      Prisma.sql`
      SELECT stage::text, currency, sum(micros)::bigint AS held FROM ${figureRows("case_held", undefined, producers)} f
      GROUP BY stage, currency HAVING sum(micros) > 0`,
    ),
    sqlRows<LatencyRow>(
      db,
      Prisma.sql`
      WITH first_decisions AS (
        -- Each decision carries when its episode opened (set on insert), so no case is looked up.
        SELECT d.case_id, d.episode, min(d.created_at) AS decided_at, min(d.case_opened_at) AS opened_at
        FROM decisions d
        WHERE d.created_at >= ${since} AND d.case_opened_at IS NOT NULL ${ofMyCase(Prisma.sql`d.case_id`)}
        GROUP BY d.case_id, d.episode
      )
      SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM f.decided_at - f.opened_at)) AS p50,
             percentile_cont(0.9) WITHIN GROUP (ORDER BY extract(epoch FROM f.decided_at - f.opened_at)) AS p90,
             count(*) AS n
      FROM first_decisions f`,
    ),
    sqlRows<{ rescues: bigint; delivery_failures: bigint; poison: bigint }>(
      db,
      Prisma.sql`
      SELECT count(*) FILTER (WHERE a.kind = 'lease_rescued') AS rescues,
             count(*) FILTER (WHERE a.kind = 'recovery_unresolved' AND a.before->>'stage' = 'delivery') AS delivery_failures,
             count(*) FILTER (WHERE a.kind = 'poison_parked') AS poison
      FROM audit_events a
      WHERE a.kind IN ('lease_rescued', 'recovery_unresolved', 'poison_parked') AND a.created_at >= ${since}
        ${ofMyCase(Prisma.sql`a.case_id`)}`,
    ),
    sqlRows<{ n: bigint }>(
      db,
      Prisma.sql`
      SELECT count(*) AS n FROM cases
      WHERE stage = 'submission_uncertain' AND state <> 'resolved' AND opened_at >= ${alertSince} AND ${mine}`,
    ),
    heldOverTime(db, now, producers),
    caseFlagFigures(db, producers),
    inFlightPermits(db, now, producers),
    outputsExpiringSoon(db, now, producers),
    retentionPolicyView(db),
    pausedProviders(db, now, producers),
    producerNotToldCount(db, producers),
    openLateChargeFigures(db, producers),
  ]);
  const ordered = [...stages].sort((a, b) => STAGE_ORDER.indexOf(a.stage) - STAGE_ORDER.indexOf(b.stage));
  const openUncertain = stages.find((s) => s.stage === "submission_uncertain");
  const recent = Number(recentUncertain[0]?.n ?? 0);
  return {
    generatedAt: now.toISOString(),
    /** Nothing is evicted silently (decision 033): the policy in force and when it next runs. */
    retention: {
      globalDays: retention.globalDays,
      // Only the reader's producers' own policies are counted: the others are not theirs to know of.
      producerPolicies: retention.producers.filter((p) => producers === null || producers.includes(p.producer)).length,
      nextRunAt: retention.nextRunAt.toISOString(),
    },
    stages: ordered.map((s) => ({
      stage: s.stage,
      open: Number(s.open),
      oldestAgeSeconds: s.oldest ? Math.floor((now.getTime() - s.oldest.getTime()) / 1000) : null,
      held: money
        .filter((m) => m.stage === s.stage)
        .map((m) => ({ currency: m.currency, micros: toMicrosTotal(m.held) })),
    })),
    unresolvedUncertain: Number(openUncertain?.open ?? 0),
    reviewLatency: {
      p50Seconds: latency[0]?.p50 ?? null,
      p90Seconds: latency[0]?.p90 ?? null,
      decisions: Number(latency[0]?.n ?? 0),
    },
    /** Resolved cases whose hold is still open: finance must settle or release it (rule 13). */
    needsDecision: flags.holdOpen,
    escalatedOpen: flags.escalatedOpen,
    /** Cases whose producer's notification was given up: nobody told the producer (decision 045). */
    producerNotTold: notTold,
    /** DESIGN rule 18: charges proved after a hold's release that finance has not decided. */
    chargedAfterRelease: lateCharges,
    leaseRescues24h: Number(events[0]?.rescues ?? 0),
    deliveryFailures24h: Number(events[0]?.delivery_failures ?? 0),
    poisonParked24h: Number(events[0]?.poison ?? 0),
    outputsExpiringSoon: expiring,
    /** Sends under a permit that have not come back yet: not cases, but their money is held. */
    inFlight,
    /** Providers (or one producer at a provider) whose unknown-outcome breaker refuses new permits (decision 037). */
    pausedProviders: paused.map((p) => ({
      provider: p.provider,
      producer: p.producer,
      pausedUntil: p.pausedUntil.toISOString(),
    })),
    alert:
      recent >= options.alertThreshold
        ? { recentUncertain: recent, windowMinutes: options.alertWindowMinutes, threshold: options.alertThreshold }
        : null,
    ageBuckets: ordered.flatMap((s) => {
      // g<k>: open cases at least as old as bucket k+1's start; the buckets are the differences.
      const at = [s.open, s.g0, s.g1, s.g2, s.g3, 0n].map(Number);
      return AGE_BUCKETS.flatMap((bucket, k) => {
        const count = (at[k] ?? 0) - (at[k + 1] ?? 0);
        return count > 0 ? [{ stage: s.stage, bucket, count }] : [];
      });
    }),
    heldOverTime: series.map((s) => ({
      day: s.day.toISOString().slice(0, 10),
      currency: s.currency,
      micros: toMicrosTotal(s.held),
    })),
  };
}

type HourRow = SeriesRow & { ends: Date; ends_hour: Date };

/**
 * Money on hold at the end of each of the last 14 days (in the session's time zone, which is UTC in
 * every session the app opens: decision 010), per currency that has holds: every reserve minus every
 * settle and release booked before the day ended, read as the running total less what was booked
 * since the hour that contains the day's end. Where a day ends inside an hour (a session in a zone
 * off the hour, which the app's own sessions never are), what that hour booked before the end is
 * added back by a second query, which names its few ranges outright so the planner sees how little
 * it reads.
 */
async function heldOverTime(db: Db, now: Date, producers: ProducerFilter): Promise<SeriesRow[]> {
  const rows = await sqlRows<HourRow>(
    db,
    Prisma.sql`
    WITH days AS MATERIALIZED (
      -- Counted in integers, so the planner knows there are 14 (a misjudged 1,000 made the query look
      -- costly enough for PostgreSQL's JIT compiler, which then spent a second compiling it).
      SELECT day, day + interval '1 day' AS ends, date_trunc('hour', day + interval '1 day', 'UTC') AS ends_hour
      FROM generate_series(0, 13) AS back
      CROSS JOIN LATERAL (SELECT date_trunc('day', ${now}::timestamptz) - back * interval '1 day' AS day) d
    ), currencies AS MATERIALIZED (
      SELECT currency FROM ${figureRows("holds", undefined, producers)} f GROUP BY currency HAVING sum(count) > 0
    ), totals AS MATERIALIZED (
      SELECT currency, sum(micros) AS micros FROM ${figureRows("ledger_held", allHours, producers)} f GROUP BY currency
    ), recent AS MATERIALIZED (
      SELECT currency, hour, sum(micros) AS micros
      FROM ${figureRows("ledger_held", hoursFrom(utcHourOf(new Date(now.getTime() - 14 * 86_400_000))), producers)} f
      GROUP BY currency, hour
    )
    SELECT d.day, d.ends, d.ends_hour, c.currency,
           (coalesce(t.micros, 0)
            - coalesce((SELECT sum(r.micros) FROM recent r WHERE r.currency = c.currency AND r.hour >= d.ends_hour), 0)
           )::bigint AS held
    FROM days d CROSS JOIN currencies c LEFT JOIN totals t ON t.currency = c.currency
    ORDER BY d.day, c.currency`,
  );
  const cut = rows.filter((row) => row.ends.getTime() !== row.ends_hour.getTime());
  if (cut.length === 0) return rows;
  const ranges = [...new Map(cut.map((row) => [row.day.getTime(), row])).values()];
  const edges = await sqlRows<SeriesRow>(
    db,
    Prisma.sql`
    SELECT r.day, h.currency,
           sum(CASE WHEN e.kind = 'reserve' THEN e.amount_micros
                    WHEN e.kind IN ('settle', 'release') THEN -e.amount_micros ELSE 0 END)::bigint AS held
    FROM ledger_entries e
    JOIN holds h ON h.id = e.hold_ref
    JOIN (VALUES ${Prisma.join(ranges.map((r) => Prisma.sql`(${r.day}::timestamptz, ${r.ends_hour}::timestamptz, ${r.ends}::timestamptz)`))})
      AS r(day, starts, ends) ON e.created_at >= r.starts AND e.created_at < r.ends
    WHERE ${producerIn(producers, Prisma.sql`h.producer`)} AND (${Prisma.join(
      ranges.map((r) => Prisma.sql`(e.created_at >= ${r.ends_hour} AND e.created_at < ${r.ends})`),
      " OR ",
    )})
    GROUP BY 1, 2`,
  );
  return rows.map((row) => {
    const edge = edges.find((e) => e.day.getTime() === row.day.getTime() && e.currency === row.currency);
    return { day: row.day, currency: row.currency, held: row.held + (edge?.held ?? 0n) };
  });
}

export type OverviewStats = Awaited<ReturnType<typeof overviewStats>>;
