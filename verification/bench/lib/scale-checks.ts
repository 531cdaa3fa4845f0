import type { PrismaClient } from "../../../lib/db/client";
import type { UserActor } from "../../../lib/services/access/actor";
import { compareFiguresWithScans } from "../../../tests/integration/helpers/compare-figures";

/** The seed's second producer (scale-seed.ts: every fourth case). */
const ONE_PRODUCER = "studio-app";
const differs = (f: { served: unknown; scanned: unknown }) => JSON.stringify(f.served) !== JSON.stringify(f.scanned);

/**
 * The overview's and the finance page's figures, read from the running totals by the services,
 * against full scans of the rows (what the services computed before): the names of the figures
 * that differ (none, or the totals are wrong), and how long the scans took. The money-over-time
 * series is scanned in one pass: the original query takes minutes at this size. The figures of one
 * producer (the seed's smaller one, a quarter of the rows) are compared too: the totals carry the
 * producer (decision 034), and one producer's figures must equal the scan of its rows alone.
 */
export async function figuresDifferingFromScans(
  db: PrismaClient,
  actor: UserActor,
  now: Date,
): Promise<{ differing: string[]; scanMs: { overview: number; finance: number } }> {
  const { figures, scanMs } = await compareFiguresWithScans(db, actor, now, {
    alertWindowMinutes: 60,
    series: "cumulative",
  });
  const one = await compareFiguresWithScans(db, actor, now, {
    alertWindowMinutes: 60,
    series: "cumulative",
    producers: [ONE_PRODUCER],
  });
  const differing = [
    ...figures.filter(differs).map((f) => f.figure),
    ...one.figures.filter(differs).map((f) => `${f.figure} (${ONE_PRODUCER})`),
  ];
  return { differing, scanMs };
}
