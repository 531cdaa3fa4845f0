import { recordAudit } from "@/lib/audit/writer";
import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { sqlRows } from "@/lib/db/sql-rows";
import type { Principal } from "@/lib/domain/principal";
import { increment } from "@/lib/metrics/counters";

/**
 * After a send of `producer` to `provider` ended `unknown` (the producer's report, or the product's
 * for a silent producer): opens the provider's breaker when, over its window (from an admin's
 * resume at the earliest), at least `min_outcomes` permits were reported and at least
 * `unknown_percent` of them ended uncertain; and pauses this producer alone at the provider when
 * its own outcomes pass the same threshold while the provider is not paused (its integration
 * failing while the provider is fine).
 * A pause lasts one window from the trip, the time the outcomes that tripped it take to leave the
 * window; another unknown meanwhile that still finds the share too high extends it. Runs in the
 * report's transaction, so its own outcome counts; only an `unknown` pays for the count, so the
 * accepted and completed reports of a healthy provider never do.
 */
export async function tripBreakerIfDue(tx: Db, actor: Principal, provider: string, producer: string): Promise<void> {
  const rows = await sqlRows<{ scope: "provider" | "producer"; paused_until: Date }>(
    tx,
    Prisma.sql`
    WITH b AS (
      SELECT b.provider, b.unknown_percent, b.window_seconds, b.min_outcomes,
             greatest(now() - make_interval(secs => b.window_seconds), coalesce(b.counts_from, '-infinity')) AS since,
             greatest(now() - make_interval(secs => b.window_seconds), coalesce(b.counts_from, '-infinity'),
                      coalesce(pp.counts_from, '-infinity')) AS producer_since
      FROM provider_breakers b
      LEFT JOIN producer_breaker_pauses pp ON pp.provider = b.provider AND pp.producer = ${producer}
      WHERE b.provider = ${provider}
    ), seen AS (
      SELECT count(*) AS outcomes, count(*) FILTER (WHERE p.status = 'uncertain') AS unknowns,
             count(*) FILTER (WHERE p.producer = ${producer} AND p.reported_at > b.producer_since) AS mine,
             count(*) FILTER (WHERE p.producer = ${producer} AND p.reported_at > b.producer_since
                              AND p.status = 'uncertain') AS my_unknowns
      FROM b JOIN send_permits p ON p.reported_at > b.since
      JOIN attempts a ON a.id = p.attempt_ref AND a.provider = b.provider
    ), whole AS (
      UPDATE provider_breakers pb
      SET paused_until = now() + make_interval(secs => b.window_seconds), tripped_at = now()
      FROM b, seen
      WHERE pb.provider = b.provider AND seen.outcomes >= b.min_outcomes
        AND seen.unknowns * 100 >= b.unknown_percent * seen.outcomes
      RETURNING 'provider' AS scope, pb.paused_until
    ), mine AS (
      INSERT INTO producer_breaker_pauses (provider, producer, paused_until, tripped_at)
      SELECT b.provider, ${producer}, now() + make_interval(secs => b.window_seconds), now() FROM b, seen
      WHERE seen.mine >= b.min_outcomes AND seen.my_unknowns * 100 >= b.unknown_percent * seen.mine
        -- A paused provider already refuses this producer: a pause of its own would say nothing more.
        AND NOT EXISTS (SELECT 1 FROM whole)
        AND NOT EXISTS (SELECT 1 FROM provider_breakers WHERE provider = b.provider AND paused_until > now())
      ON CONFLICT (provider, producer) DO UPDATE SET paused_until = EXCLUDED.paused_until, tripped_at = EXCLUDED.tripped_at
      RETURNING 'producer' AS scope, producer_breaker_pauses.paused_until
    )
    SELECT scope, paused_until FROM whole UNION ALL SELECT scope, paused_until FROM mine`,
  );
  for (const row of rows) {
    increment("recovery_provider_breaker_trips_total", { provider, scope: row.scope });
    // A pause stops every new send to the provider (or of this producer to it): it is on the
    // record like an admin's resume, with the report that tipped it as its actor.
    await recordAudit(tx, {
      actor,
      kind: "provider_breaker_tripped",
      after: {
        provider,
        scope: row.scope,
        ...(row.scope === "producer" ? { producer } : {}),
        pausedUntil: row.paused_until.toISOString(),
      },
    });
  }
}
