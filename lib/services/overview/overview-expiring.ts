import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { sqlRows } from "@/lib/db/sql-rows";
import { type ProducerFilter, producerIn } from "@/lib/db/stat-figures";
import { toMicrosTotal } from "@/lib/domain/money";

export const EXPIRING_WINDOW_SECONDS = 3600;

/**
 * Open cases whose outputs the provider will delete within the hour (or may have deleted already,
 * not yet noticed), with the money on hold behind them: a copy that waits past that is paid for
 * and lost. Read through the partial index of open cases with an expiry, so it stays small.
 */
export async function outputsExpiringSoon(db: Db, now: Date, producers: ProducerFilter = null) {
  const until = new Date(now.getTime() + EXPIRING_WINDOW_SECONDS * 1000);
  const rows = await sqlRows<{ currency: string; n: bigint; held: bigint }>(
    db,
    Prisma.sql`
    SELECT currency, count(*) AS n, coalesce(sum(held_micros), 0)::bigint AS held FROM cases
    WHERE outputs_expire_at IS NOT NULL AND state <> 'resolved' AND outputs_expire_at < ${until}
      AND outputs_unavailable_at IS NULL AND ${producerIn(producers, Prisma.sql`producer`)}
    GROUP BY currency`,
  );
  return {
    windowSeconds: EXPIRING_WINDOW_SECONDS,
    count: rows.reduce((sum, row) => sum + Number(row.n), 0),
    held: rows
      .filter((row) => row.held > 0n)
      .map((row) => ({ currency: row.currency, micros: toMicrosTotal(row.held) })),
  };
}
