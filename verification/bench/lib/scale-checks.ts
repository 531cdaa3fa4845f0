import type { PrismaClient } from "../../../lib/db/client";
import type { UserActor } from "../../../lib/services/access/actor";
import { compareFiguresWithScans } from "../../../tests/integration/helpers/compare-figures";

/**
 * The overview's and the finance page's figures, read from the running totals by the services,
 * against full scans of the rows (what the services computed before): the names of the figures
 * that differ (none, or the totals are wrong), and how long the scans took. The money-over-time
 * series is scanned in one pass: the original query takes minutes at this size.
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
  const differing = figures.filter((f) => JSON.stringify(f.served) !== JSON.stringify(f.scanned)).map((f) => f.figure);
  return { differing, scanMs };
}
