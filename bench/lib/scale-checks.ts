import type { PrismaClient } from "../../lib/db/client";
import type { UserActor } from "../../lib/services/actor";
import { getHeldByAge } from "../../lib/services/finance-aging";
import { getExposure } from "../../lib/services/finance-exposure";
import { getFinanceTotals } from "../../lib/services/finance-totals";
import { overviewStats } from "../../lib/services/overview-stats";
import {
  agingByScan,
  exposureByScan,
  overviewByScan,
  totalsByScan,
} from "../../tests/integration/helpers/figures-by-scan";

const BUCKET_LABELS = ["< 1 h", "1–6 h", "6–24 h", "1–3 d", "> 3 d"];
const AGING_KEYS = ["lt_1h", "lt_1d", "lt_7d", "lt_30d", "gte_30d"];
const num = (value: unknown) => (typeof value === "bigint" ? Number(value) : value);
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The overview's and the finance page's figures, read from the running totals by the services,
 * against full scans of the rows (what the services computed before): the names of the figures
 * that differ (none, or the totals are wrong), and how long the scans took.
 */
export async function figuresDifferingFromScans(
  db: PrismaClient,
  actor: UserActor,
  now: Date,
): Promise<{ differing: string[]; scanMs: { overview: number; finance: number } }> {
  const stats = await overviewStats(db, actor, { alertWindowMinutes: 60, alertThreshold: 1, now });
  let at = performance.now();
  const scan = await overviewByScan(db, now, new Date(now.getTime() - 60 * 60_000), { series: "cumulative" });
  const overviewMs = performance.now() - at;
  at = performance.now();
  const [aging, exposure, totalsScan] = await Promise.all([agingByScan(db, now), exposureByScan(db), totalsByScan(db)]);
  const financeMs = performance.now() - at;
  const differing: string[] = [];
  const check = (name: string, a: unknown, b: unknown) => {
    if (!same(a, b)) differing.push(name);
  };
  check(
    "open cases by stage",
    stats.stages.map((s) => [s.stage, s.open, s.oldestAgeSeconds]).sort(),
    scan.stages.map((s) => [s.stage, Number(s.open), Math.floor((now.getTime() - s.oldest.getTime()) / 1000)]).sort(),
  );
  check(
    "money on hold by stage",
    stats.stages.flatMap((s) => s.held.map((h) => [s.stage, h.currency, h.micros])).sort(),
    scan.money.map((m) => [m.stage, m.currency, Number(m.held)]).sort(),
  );
  check(
    "open cases by age",
    stats.ageBuckets.map((b) => [b.stage, b.bucket, b.count]).sort(),
    scan.buckets.map((b) => [b.stage, BUCKET_LABELS[b.bucket], Number(b.n)]).sort(),
  );
  check("recent uncertain submissions", stats.alert?.recentUncertain ?? 0, scan.recent);
  check(
    "money on hold over 14 days",
    stats.heldOverTime,
    scan.series.map((s) => ({ day: s.day.toISOString().slice(0, 10), currency: s.currency, micros: Number(s.held) })),
  );
  check(
    "open holds by age",
    (await getHeldByAge(db, actor, now)).map((r) => [r.currency, r.bucket, r.count, r.micros, r.oldestAt]),
    aging.map((r) => [r.currency, AGING_KEYS[r.bucket], Number(r.count), Number(r.micros), r.oldest.toISOString()]),
  );
  check(
    "exposure",
    (await getExposure(db, actor)).map((r) => [r.currency, r.count, r.micros, r.oldestAt]),
    exposure.map((r) => [r.currency, Number(r.count), Number(r.micros), r.oldest.toISOString()]),
  );
  const totals = await getFinanceTotals(db, actor);
  check(
    "finance totals by currency, provider and model",
    totals.byProviderModel.map((t) => [
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
      t.reservedMicros,
    ]),
    totalsScan.map((row) => Object.values(row).map(num)),
  );
  return { differing, scanMs: { overview: overviewMs, finance: financeMs } };
}
