import type { Db } from "@/lib/db/client";
import type { Principal } from "@/lib/domain/principal";
import { requirePermission } from "./actor";

export const AGE_BUCKETS = ["< 1 h", "1–6 h", "6–24 h", "1–3 d", "> 3 d"] as const;

type StageRow = { stage: string; open: bigint; oldest: Date | null };
type MoneyRow = { stage: string; currency: string; held: bigint };
type BucketRow = { stage: string; bucket: number; n: bigint };
type LatencyRow = { p50: number | null; p90: number | null; n: bigint };
type SeriesRow = { day: Date; currency: string; held: bigint };

/**
 * What an operator looks at first (DESIGN section 10), each figure one aggregate query so the page
 * stays cheap however long the queue is.
 */
export async function overviewStats(
  db: Db,
  actor: Principal,
  options: { alertWindowMinutes: number; alertThreshold: number; now?: Date },
) {
  requirePermission(actor, "case:read");
  const now = options.now ?? new Date();
  const since = new Date(now.getTime() - 24 * 3600 * 1000);
  const alertSince = new Date(now.getTime() - options.alertWindowMinutes * 60_000);
  const [stages, money, buckets, latency, rescues, deliveryFailures, recentUncertain, series] = await Promise.all([
    db.$queryRaw<StageRow[]>`
      SELECT stage::text, count(*) AS open, min(opened_at) AS oldest FROM cases
      WHERE state <> 'resolved' GROUP BY stage`,
    db.$queryRaw<MoneyRow[]>`
      SELECT stage::text, currency, sum(held_micros)::bigint AS held FROM cases
      WHERE held_micros > 0 GROUP BY stage, currency`,
    db.$queryRaw<BucketRow[]>`
      SELECT stage::text, width_bucket(extract(epoch FROM ${now}::timestamptz - opened_at), ARRAY[3600, 21600, 86400, 259200]::float8[]) AS bucket,
             count(*) AS n
      FROM cases WHERE state <> 'resolved' GROUP BY 1, 2`,
    db.$queryRaw<LatencyRow[]>`
      WITH first_decisions AS (
        SELECT d.case_id, d.episode, min(d.created_at) AS decided_at FROM decisions d
        WHERE d.created_at >= ${since} GROUP BY d.case_id, d.episode
      )
      SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM f.decided_at - c.opened_at)) AS p50,
             percentile_cont(0.9) WITHIN GROUP (ORDER BY extract(epoch FROM f.decided_at - c.opened_at)) AS p90,
             count(*) AS n
      FROM first_decisions f JOIN cases c ON c.id = f.case_id AND c.episode = f.episode`,
    db.auditEvent.count({ where: { kind: "lease_rescued", createdAt: { gte: since } } }),
    db.$queryRaw<{ n: bigint }[]>`
      SELECT count(*) AS n FROM audit_events
      WHERE kind = 'recovery_unresolved' AND created_at >= ${since} AND before->>'stage' = 'delivery'`,
    db.case.count({
      where: { stage: "submission_uncertain", state: { not: "resolved" }, openedAt: { gte: alertSince } },
    }),
    db.$queryRaw<SeriesRow[]>`
      SELECT day, h.currency, coalesce(sum(CASE WHEN e.kind = 'reserve' THEN e.amount_micros
                                          WHEN e.kind IN ('settle', 'release') THEN -e.amount_micros ELSE 0 END), 0)::bigint AS held
      FROM generate_series(date_trunc('day', ${now}::timestamptz) - interval '13 days', date_trunc('day', ${now}::timestamptz), interval '1 day') AS day
      CROSS JOIN (SELECT DISTINCT currency FROM holds) h
      LEFT JOIN holds ho ON ho.currency = h.currency
      LEFT JOIN ledger_entries e ON e.hold_ref = ho.id AND e.created_at < day + interval '1 day'
      GROUP BY day, h.currency ORDER BY day`,
  ]);
  const openUncertain = stages.find((s) => s.stage === "submission_uncertain");
  return {
    generatedAt: now.toISOString(),
    stages: stages.map((s) => ({
      stage: s.stage,
      open: Number(s.open),
      oldestAgeSeconds: s.oldest ? Math.floor((now.getTime() - s.oldest.getTime()) / 1000) : null,
      held: money.filter((m) => m.stage === s.stage).map((m) => ({ currency: m.currency, micros: Number(m.held) })),
    })),
    unresolvedUncertain: Number(openUncertain?.open ?? 0),
    reviewLatency: {
      p50Seconds: latency[0]?.p50 ?? null,
      p90Seconds: latency[0]?.p90 ?? null,
      decisions: Number(latency[0]?.n ?? 0),
    },
    leaseRescues24h: rescues,
    deliveryFailures24h: Number(deliveryFailures[0]?.n ?? 0),
    alert:
      recentUncertain >= options.alertThreshold
        ? { recentUncertain, windowMinutes: options.alertWindowMinutes, threshold: options.alertThreshold }
        : null,
    ageBuckets: buckets.map((b) => ({
      stage: b.stage,
      bucket: AGE_BUCKETS[b.bucket] ?? AGE_BUCKETS[4],
      count: Number(b.n),
    })),
    heldOverTime: series.map((s) => ({
      day: s.day.toISOString().slice(0, 10),
      currency: s.currency,
      micros: Number(s.held),
    })),
  };
}

export type OverviewStats = Awaited<ReturnType<typeof overviewStats>>;
