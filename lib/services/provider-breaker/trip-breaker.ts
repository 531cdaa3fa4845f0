import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { sqlRows } from "@/lib/db/sql-rows";
import { increment } from "@/lib/metrics/counters";

/**
 * After a send of `provider` ended `unknown` (a producer's report, or the product's for a silent
 * producer): opens the provider's breaker when, over its window (from an admin's resume at the
 * earliest), at least `min_outcomes` permits were reported and at least `unknown_percent` of them
 * ended uncertain. It stays open for one window from this trip, the time the outcomes that tripped
 * it take to leave the window; another unknown meanwhile that still finds the share too high
 * extends it. Runs in the report's transaction, so its own outcome counts; only an `unknown`
 * pays for the count, so the accepted and completed reports of a healthy provider never do.
 */
export async function tripBreakerIfDue(tx: Db, provider: string): Promise<boolean> {
  const rows = await sqlRows<{ paused_until: Date }>(
    tx,
    Prisma.sql`
    WITH b AS (
      SELECT provider, unknown_percent, window_seconds, min_outcomes,
             greatest(now() - make_interval(secs => window_seconds), coalesce(counts_from, '-infinity')) AS since
      FROM provider_breakers WHERE provider = ${provider}
    ), seen AS (
      SELECT count(*) AS outcomes, count(*) FILTER (WHERE p.status = 'uncertain') AS unknowns
      FROM b JOIN send_permits p ON p.reported_at > b.since
      JOIN attempts a ON a.id = p.attempt_ref AND a.provider = b.provider
    )
    UPDATE provider_breakers pb
    SET paused_until = now() + make_interval(secs => b.window_seconds), tripped_at = now()
    FROM b, seen
    WHERE pb.provider = b.provider AND seen.outcomes >= b.min_outcomes
      AND seen.unknowns * 100 >= b.unknown_percent * seen.outcomes
    RETURNING pb.paused_until`,
  );
  if (rows.length === 0) return false;
  increment("recovery_provider_breaker_trips_total", { provider });
  return true;
}
