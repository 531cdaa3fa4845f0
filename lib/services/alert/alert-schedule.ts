import type { Db } from "@/lib/db/client";
import { ALERT_ROUND_INTERVAL_MS } from "@/lib/domain/alert-episodes";

/**
 * Takes the alert round if it is due, moving the schedule row forward in the same statement, so of
 * any number of processes asking at once one gets it. Returns the round's time, the database's
 * clock (heartbeats are stamped on it too), or null when the round is not due. `overdueMs`: only a
 * round left untaken that long (the console's fallback, which leaves a due round to the workers).
 * `now` stands in for the database's clock (tests that move time forward).
 */
export async function claimAlertRound(db: Db, options: { now?: Date; overdueMs?: number } = {}): Promise<Date | null> {
  // An upsert, so a schedule row that is gone (a restored or emptied table) is due, not never.
  const rows = await db.$queryRaw<{ at: Date }[]>`
    WITH clock AS (SELECT coalesce(${options.now ?? null}::timestamptz, now()) AS at)
    INSERT INTO alert_schedule AS s (id, next_run_at, last_run_at)
    SELECT true, at + make_interval(secs => ${ALERT_ROUND_INTERVAL_MS / 1000}), at FROM clock
    ON CONFLICT (id) DO UPDATE SET next_run_at = EXCLUDED.next_run_at, last_run_at = EXCLUDED.last_run_at
     WHERE s.next_run_at <= EXCLUDED.last_run_at - make_interval(secs => ${(options.overdueMs ?? 0) / 1000})
    RETURNING last_run_at AS at`;
  return rows[0]?.at ?? null;
}

/**
 * Makes the next round due now, for whichever worker ticks next: a rule or destination just saved
 * is judged by its new settings at once, not up to an interval later. Set to now rather than kept
 * when earlier, so the console's fallback (overdue rounds only) leaves it to the workers.
 */
export async function makeAlertRoundDue(db: Db): Promise<void> {
  await db.$executeRaw`UPDATE alert_schedule SET next_run_at = now()`;
}
