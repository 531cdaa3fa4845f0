import { recordAudit } from "@/lib/audit/writer";
import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { sqlRows } from "@/lib/db/sql-rows";
import type { Principal } from "@/lib/domain/principal";
import { increment } from "@/lib/metrics/counters";
import { openPause } from "../scope-pause/writer/pauses";

/** The label a breaker pause carries where a person's carries the person's name. */
export const BREAKER_LABEL = "Unknown-outcome breaker";

/**
 * After a send of `producer` to `provider` ended `unknown` (the producer's report, or the product's
 * for a silent producer): pauses the provider when, over its breaker's window (from an admin's
 * resume at the earliest), at least `min_outcomes` permits were reported and at least
 * `unknown_percent` of them ended uncertain; and pauses this producer alone at the provider when
 * its own outcomes (from the last resume of its own pause there) pass the same threshold while the
 * provider is not paused (its integration failing while the provider is fine).
 * A pause lasts one window from the trip, the time the outcomes that tripped it take to leave the
 * window; another unknown meanwhile that still finds the share too high extends it. The pause is a
 * row of `pauses` with cause `breaker`, written by the pauses' one writer (decision 070). Runs in the
 * report's transaction, so its own outcome counts; only an `unknown` pays for the count, so the
 * accepted and completed reports of a healthy provider never do.
 */
export async function tripBreakerIfDue(tx: Db, actor: Principal, provider: string, producer: string): Promise<void> {
  const [due] = await sqlRows<{ window_seconds: number; whole: boolean; mine: boolean }>(
    tx,
    Prisma.sql`
    WITH b AS (
      SELECT b.provider, b.unknown_percent, b.window_seconds, b.min_outcomes,
             greatest(now() - make_interval(secs => b.window_seconds), coalesce(b.counts_from, '-infinity')) AS since,
             greatest(now() - make_interval(secs => b.window_seconds), coalesce(b.counts_from, '-infinity'),
                      coalesce((SELECT max(resumed_at) FROM pauses
                                WHERE kind = 'producer' AND value = ${producer} AND at_provider = b.provider
                                  AND resumed_at IS NOT NULL), '-infinity')) AS producer_since
      FROM provider_breakers b
      WHERE b.provider = ${provider}
    ), seen AS (
      SELECT count(*) AS outcomes, count(*) FILTER (WHERE p.status = 'uncertain') AS unknowns,
             count(*) FILTER (WHERE p.producer = ${producer} AND p.reported_at > b.producer_since) AS mine,
             count(*) FILTER (WHERE p.producer = ${producer} AND p.reported_at > b.producer_since
                              AND p.status = 'uncertain') AS my_unknowns
      FROM b JOIN send_permits p ON p.reported_at > b.since
      JOIN attempts a ON a.id = p.attempt_ref AND a.provider = b.provider
    )
    SELECT b.window_seconds,
           seen.outcomes >= b.min_outcomes AND seen.unknowns * 100 >= b.unknown_percent * seen.outcomes AS whole,
           seen.mine >= b.min_outcomes AND seen.my_unknowns * 100 >= b.unknown_percent * seen.mine AS mine
    FROM b, seen`,
  );
  if (!due) return;
  const by = { pausedById: null, pausedByLabel: BREAKER_LABEL, untilSeconds: due.window_seconds };
  if (due.whole) {
    const opened = await openPause(
      tx,
      { kind: "provider", value: provider, cause: "breaker" },
      { ...by, reason: "Too many recent sends ended with an unknown outcome." },
    );
    await recordTrip(tx, actor, { provider, scope: "provider", until: opened.until });
    return;
  }
  // A paused provider already refuses this producer: a pause of its own would say nothing more.
  if (!due.mine || (await providerPaused(tx, provider))) return;
  const opened = await openPause(
    tx,
    { kind: "producer", value: producer, atProvider: provider, cause: "breaker" },
    { ...by, reason: "Too many of this producer's recent sends ended with an unknown outcome." },
  );
  await recordTrip(tx, actor, { provider, scope: "producer", producer, until: opened.until });
}

async function providerPaused(tx: Db, provider: string): Promise<boolean> {
  const [row] = await sqlRows<{ paused: boolean }>(
    tx,
    Prisma.sql`SELECT EXISTS (SELECT 1 FROM pauses WHERE kind = 'provider' AND value = ${provider} AND at_provider = ''
      AND cause = 'breaker' AND resumed_at IS NULL AND until > now()) AS paused`,
  );
  return row?.paused === true;
}

async function recordTrip(
  tx: Db,
  actor: Principal,
  trip: { provider: string; scope: "provider" | "producer"; producer?: string; until: Date | null },
): Promise<void> {
  increment("recovery_provider_breaker_trips_total", { provider: trip.provider, scope: trip.scope });
  // A pause stops every new send to the provider (or of this producer to it): it is on the
  // record like an admin's resume, with the report that tipped it as its actor.
  await recordAudit(tx, {
    actor,
    kind: "provider_breaker_tripped",
    after: {
      provider: trip.provider,
      scope: trip.scope,
      ...(trip.producer !== undefined ? { producer: trip.producer } : {}),
      pausedUntil: trip.until?.toISOString() ?? null,
    },
  });
}
