import type { PrismaClient } from "@/lib/db/client";
import type { UserActor } from "@/lib/services/access/actor";
import { getHeldByAge } from "@/lib/services/finance/finance-aging";
import { getExposure } from "@/lib/services/finance/finance-exposure";
import { getFinanceTotals } from "@/lib/services/finance/finance-totals";
import { overviewStats } from "@/lib/services/overview/overview-stats";
import {
  agingByScan,
  correctionsByDayScan,
  correctionsByDayServed,
  exposureByScan,
  holdOpenByScan,
  overviewByScan,
  type Producers,
  totalsByScan,
} from "./figures-by-scan";

const BUCKET_LABELS = ["< 1 h", "1–6 h", "6–24 h", "1–3 d", "> 3 d"];
const AGING_KEYS = ["lt_1h", "lt_1d", "lt_7d", "lt_30d", "gte_30d"];
const num = (value: unknown) => (typeof value === "bigint" ? Number(value) : value);

/** One figure as the services serve it and as the full scan computes it, in the same shape. */
export type FigureComparison = { figure: string; served: unknown; scanned: unknown };

/**
 * The overview's and the finance page's figures, read by the services from the running totals,
 * next to the full scans of the rows (see figures-by-scan), the overview scan itself, and how long
 * the scans took. The two sides of every figure must be equal, or the running totals are wrong. With `producers`,
 * both sides are of those producers only.
 */
export async function compareFiguresWithScans(
  db: PrismaClient,
  actor: UserActor,
  now: Date,
  options: { alertWindowMinutes: number; series: "original" | "cumulative"; producers?: Producers },
): Promise<{
  figures: FigureComparison[];
  overviewScan: Awaited<ReturnType<typeof overviewByScan>>;
  scanMs: { overview: number; finance: number };
}> {
  const { alertWindowMinutes, series } = options;
  const producers = options.producers ?? null;
  const stats = await overviewStats(db, actor, { alertWindowMinutes, alertThreshold: 1, now, producers });
  let at = performance.now();
  const scan = await overviewByScan(db, now, new Date(now.getTime() - alertWindowMinutes * 60_000), {
    series,
    producers,
  });
  const overviewMs = performance.now() - at;
  at = performance.now();
  const [aging, exposure, totalsScan, holdOpen, correctionsScan] = await Promise.all([
    agingByScan(db, now, producers),
    exposureByScan(db, producers),
    totalsByScan(db, producers),
    holdOpenByScan(db, producers),
    correctionsByDayScan(db, producers),
  ]);
  const financeMs = performance.now() - at;
  const heldByAge = await getHeldByAge(db, actor, now, producers);
  const served = await getExposure(db, actor, producers);
  const totals = await getFinanceTotals(db, actor, producers);
  const correctionsServed = await correctionsByDayServed(db, producers);
  const figures: FigureComparison[] = [
    {
      figure: "open cases by stage",
      served: stats.stages.map((s) => [s.stage, s.open, s.oldestAgeSeconds]).sort(),
      scanned: scan.stages
        .map((s) => [s.stage, Number(s.open), Math.floor((now.getTime() - s.oldest.getTime()) / 1000)])
        .sort(),
    },
    {
      figure: "money on hold by stage",
      served: stats.stages.flatMap((s) => s.held.map((h) => [s.stage, h.currency, h.micros])).sort(),
      scanned: scan.money.map((m) => [m.stage, m.currency, String(m.held)]).sort(),
    },
    {
      figure: "open cases by age",
      served: stats.ageBuckets.map((b) => [b.stage, b.bucket, b.count]).sort(),
      scanned: scan.buckets.map((b) => [b.stage, BUCKET_LABELS[b.bucket], Number(b.n)]).sort(),
    },
    { figure: "recent uncertain submissions", served: stats.alert?.recentUncertain ?? 0, scanned: scan.recent },
    {
      figure: "money on hold over 14 days",
      served: stats.heldOverTime,
      scanned: scan.series.map((s) => ({
        day: s.day.toISOString().slice(0, 10),
        currency: s.currency,
        micros: String(s.held),
      })),
    },
    {
      figure: "open holds by age",
      served: heldByAge.map((r) => [r.currency, r.bucket, r.count, r.micros, r.oldestAt]),
      scanned: aging.map((r) => [
        r.currency,
        AGING_KEYS[r.bucket],
        Number(r.count),
        String(r.micros),
        r.oldest.toISOString(),
      ]),
    },
    {
      figure: "exposure",
      served: served.map((r) => [r.currency, r.count, r.micros, r.oldestAt]),
      scanned: exposure.map((r) => [r.currency, Number(r.count), String(r.micros), r.oldest.toISOString()]),
    },
    {
      figure: "resolved cases with a hold open",
      served: stats.needsDecision.map((r) => [r.currency, r.count, r.micros]),
      scanned: holdOpen.map((r) => [r.currency, Number(r.count), String(r.micros)]),
    },
    {
      figure: "finance totals by currency, provider and model",
      served: totals.byProviderModel.map((t) => [
        t.currency,
        t.provider,
        t.model,
        t.held.count,
        t.held.micros,
        t.settled.count,
        t.settled.partial,
        t.settled.micros,
        t.released.count,
        t.released.micros,
        t.overage.count,
        t.overage.micros,
        t.lateCharged.count,
        t.lateCharged.micros,
        t.corrected.count,
        t.corrected.micros,
        t.chargedMicros,
        t.reservedMicros,
      ]),
      // Money totals are served as exact decimal strings (decision 051), counts as numbers.
      scanned: totalsScan.map((row) =>
        Object.entries(row).map(([key, value]) => (/Micros$/.test(key) ? String(value) : num(value))),
      ),
    },
    { figure: "the provider's corrections per day", served: correctionsServed, scanned: correctionsScan },
  ];
  return { figures, overviewScan: scan, scanMs: { overview: overviewMs, finance: financeMs } };
}
