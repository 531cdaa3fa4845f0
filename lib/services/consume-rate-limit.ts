import type { Db } from "@/lib/db/client";

export type RateLimitResult = { allowed: boolean; count: number; retryAfterSeconds: number };

/**
 * A fixed-window counter in one statement, so every app instance shares the same limit and two
 * concurrent requests can never both read a stale count.
 */
export async function consumeRateLimit(
  db: Db,
  key: string,
  limit: number,
  windowSeconds: number,
): Promise<RateLimitResult> {
  // One key's row is updated by every request of that key; committing without waiting for the WAL
  // flush lets the next request have the row sooner (a crash may forget a few counts, nothing more).
  // Call it outside a transaction, as its callers do: the setting holds for the transaction.
  const rows = await db.$queryRaw<{ count: number; retry_after: number }[]>`
    WITH relaxed AS (SELECT set_config('synchronous_commit', 'off', true))
    INSERT INTO rate_limit_buckets (key, window_start, count) SELECT ${key}, now(), 1 FROM relaxed
    ON CONFLICT (key) DO UPDATE SET
      count = CASE WHEN rate_limit_buckets.window_start <= now() - make_interval(secs => ${windowSeconds}::int)
                   THEN 1 ELSE rate_limit_buckets.count + 1 END,
      window_start = CASE WHEN rate_limit_buckets.window_start <= now() - make_interval(secs => ${windowSeconds}::int)
                   THEN now() ELSE rate_limit_buckets.window_start END
    RETURNING count,
      GREATEST(1, CEIL(EXTRACT(EPOCH FROM (window_start + make_interval(secs => ${windowSeconds}::int) - now()))))::int AS retry_after`;
  const row = rows[0];
  if (!row) throw new Error("rate limit upsert returned no row");
  return { allowed: row.count <= limit, count: row.count, retryAfterSeconds: row.retry_after };
}

export async function resetRateLimit(db: Db, key: string): Promise<void> {
  await db.rateLimitBucket.deleteMany({ where: { key } });
}
