import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { processShared } from "@/lib/process-shared";

/**
 * The running totals behind the overview and finance figures (migration
 * 20261130000000_console_at_scale): triggers append signed deltas in the transaction of each
 * change, so a figure is its folded total plus the deltas not folded yet. Both are read in one
 * statement, so a concurrent fold never makes a figure count something twice or not at all.
 */
export type Figure =
  | "open_cases"
  | "case_held"
  | "holds"
  | "held_holds"
  | "ledger_held"
  | "overage"
  | "late_charge"
  | "adjustment"
  | "exposure"
  | "resolved_held";

/**
 * Which producers' figures a reader wants: `null` for every producer, or a list (an agency that
 * runs several shops). Every figure row carries its producer (docs/decisions/034).
 */
export type ProducerFilter = readonly string[] | null;

/** A condition on a producer column: true for every producer, else membership in the list. */
export function producerIn(producers: ProducerFilter | undefined, column: Prisma.Sql = Prisma.sql`producer`) {
  return producers ? Prisma.sql`${column} = ANY(${[...producers]}::text[])` : Prisma.sql`true`;
}

export function figureRows(
  figure: Figure,
  where: Prisma.Sql = Prisma.sql`true`,
  producers: ProducerFilter = null,
): Prisma.Sql {
  const mine = producerIn(producers);
  return Prisma.sql`(
    SELECT stage, currency, provider, model, hold_status, "partial", hour, producer, count, micros, settled_micros,
           released_micros
    FROM stat_totals WHERE figure = ${figure} AND ${where} AND ${mine}
    UNION ALL
    SELECT stage, currency, provider, model, hold_status, "partial", hour, producer, count, micros, settled_micros,
           released_micros
    FROM stat_deltas WHERE figure = ${figure} AND ${where} AND ${mine})`;
}

/** Hourly figures also keep their total over all hours, in the rows whose hour is NULL. */
export const allHours = Prisma.sql`hour IS NULL`;
export const hoursFrom = (hour: Date) => Prisma.sql`hour >= ${hour}`;

/** Deltas are folded once this many are pending: few enough for readers to sum (docs/performance.md §5). */
const FOLD_AT = 2_000;
/** How often one process looks at the pending deltas at most. */
const CHECK_EVERY_MS = 2_000;
/** Folders exclude each other (a second one skips rather than waits). */
const FOLD_LOCK = 72_707_370;

/** When this process last looked at the pending deltas (shared by the entry's and Next's copies). */
const foldCheck = processShared("stat-fold-check", () => ({ lastCheck: 0 }));

/**
 * Moves pending deltas into the totals: one statement deletes them and adds them to their totals,
 * then totals that reached zero everywhere are dropped. Safe to run at any time, by anyone.
 */
export async function foldStatDeltas(db: Db): Promise<number> {
  const rows = await db.$queryRaw<{ folded: number }[]>`
    WITH lock AS (SELECT pg_try_advisory_xact_lock(${FOLD_LOCK}) AS ok),
    moved AS (
      DELETE FROM stat_deltas WHERE (SELECT ok FROM lock)
      RETURNING figure, stage, currency, provider, model, hold_status, "partial", hour, producer, count, micros,
                settled_micros, released_micros
    ), summed AS (
      INSERT INTO stat_totals (figure, stage, currency, provider, model, hold_status, "partial", hour, producer, count,
                               micros, settled_micros, released_micros)
      SELECT figure, stage, currency, provider, model, hold_status, "partial", hour, producer, sum(count), sum(micros),
             sum(settled_micros), sum(released_micros)
      FROM moved GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9
      ON CONFLICT (figure, stage, currency, provider, model, hold_status, "partial", hour, producer) DO UPDATE SET
        count = stat_totals.count + excluded.count,
        micros = stat_totals.micros + excluded.micros,
        settled_micros = stat_totals.settled_micros + excluded.settled_micros,
        released_micros = stat_totals.released_micros + excluded.released_micros
    )
    SELECT count(*)::int AS folded FROM moved`;
  await db.$executeRaw`
    DELETE FROM stat_totals WHERE count = 0 AND micros = 0 AND settled_micros = 0 AND released_micros = 0`;
  return rows[0]?.folded ?? 0;
}

/** Called by the readers: folds when enough deltas wait, looking at most every couple of seconds. */
export async function foldWhenDue(db: Db, now = Date.now()): Promise<void> {
  if (now - foldCheck.lastCheck < CHECK_EVERY_MS) return;
  foldCheck.lastCheck = now;
  const rows = await db.$queryRaw<{ pending: number }[]>`
    SELECT count(*)::int AS pending FROM (SELECT 1 FROM stat_deltas LIMIT ${FOLD_AT}) d`;
  if ((rows[0]?.pending ?? 0) >= FOLD_AT) await foldStatDeltas(db);
}

/**
 * The UTC hour an instant falls in: hour-grained figures hold whole hours, and a boundary inside an
 * hour is completed from the rows of that one hour.
 */
export function utcHourOf(at: Date): Date {
  return new Date(Math.floor(at.getTime() / 3_600_000) * 3_600_000);
}
