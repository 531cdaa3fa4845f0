import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { committedAlone, sqlRows } from "@/lib/db/sql-rows";

export type RateLimitResult = { allowed: boolean; count: number; retryAfterSeconds: number };

/**
 * The rest of an `INSERT INTO rate_limit_buckets (key, window_start, count) SELECT key, now(), 1 …`:
 * a fixed-window counter bumped in the same statement that reads it, so every app instance shares
 * the limit and two concurrent requests can never both read a stale count. Returns `count` and
 * `retry_after` (whole seconds until the window ends).
 */
export function countInWindow(windowSeconds: number): Prisma.Sql {
  const expired = Prisma.sql`rate_limit_buckets.window_start <= now() - make_interval(secs => ${windowSeconds}::int)`;
  return Prisma.sql`
    ON CONFLICT (key) DO UPDATE SET
      count = CASE WHEN ${expired} THEN 1 ELSE rate_limit_buckets.count + 1 END,
      window_start = CASE WHEN ${expired} THEN now() ELSE rate_limit_buckets.window_start END
    RETURNING count,
      GREATEST(1, CEIL(EXTRACT(EPOCH FROM (window_start + make_interval(secs => ${windowSeconds}::int) - now()))))::int
        AS retry_after`;
}

/**
 * A CTE named `relaxed` for the counter's statement. One key's row is updated by every request of
 * that key; committing without waiting for the WAL flush lets the next request have the row sooner
 * (a crash may forget a few counts, nothing more). The setting holds for the whole transaction, so
 * it is made only when the statement commits alone (`committedAlone`): a caller's transaction may
 * carry money.
 */
export function relaxedCommit(db: Db): Prisma.Sql {
  return committedAlone(db)
    ? Prisma.sql`relaxed AS (SELECT set_config('synchronous_commit', 'off', true))`
    : Prisma.sql`relaxed AS (SELECT 1)`;
}

export async function consumeRateLimit(
  db: Db,
  key: string,
  limit: number,
  windowSeconds: number,
): Promise<RateLimitResult> {
  const rows = await sqlRows<{ count: number; retry_after: number }>(
    db,
    Prisma.sql`
    WITH ${relaxedCommit(db)}
    INSERT INTO rate_limit_buckets (key, window_start, count) SELECT ${key}, now(), 1 FROM relaxed
    ${countInWindow(windowSeconds)}`,
  );
  const row = rows[0];
  if (!row) throw new Error("rate limit upsert returned no row");
  return { allowed: row.count <= limit, count: row.count, retryAfterSeconds: row.retry_after };
}

/**
 * Takes back one count of the current window: an attempt that turned out to be allowed use (a
 * correct password) is not held against the key. Counting before the work keeps the bound on work
 * in flight; giving back after it makes the limit count failures only (docs/decisions/066).
 */
export async function giveBackRateLimit(db: Db, key: string, windowSeconds: number): Promise<void> {
  await db.$executeRaw`
    UPDATE rate_limit_buckets SET count = GREATEST(count - 1, 0)
     WHERE key = ${key} AND window_start > now() - make_interval(secs => ${windowSeconds}::int)`;
}

export async function resetRateLimit(db: Db, key: string): Promise<void> {
  await db.rateLimitBucket.deleteMany({ where: { key } });
}
