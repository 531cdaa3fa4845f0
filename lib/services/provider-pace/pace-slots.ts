import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { sqlRows } from "@/lib/db/sql-rows";
import type { ProviderName } from "@/lib/providers/types";

// The shared pace of a provider's API (decision 030): one row per provider in `provider_pace`, on
// the database's clock, so worker processes whose clocks differ still agree on every slot.

/** Seconds between two requests at the row's rate; none when the provider is unpaced. */
const SPACING = Prisma.sql`make_interval(secs => coalesce(1.0 / requests_per_second, 0))`;

/**
 * Reserves the provider's next request slot and returns how long to wait for it (ms). One UPDATE ...
 * RETURNING: the row lock orders concurrent callers and each sees the slot the previous one left,
 * so no slot is given twice and none is lost, however many processes ask. A provider with no row,
 * or no rate and no hold-off running, goes at once without writing anything.
 */
export async function reservePaceSlot(db: Db, provider: ProviderName): Promise<number> {
  // Before every provider request: straight to the pool (sqlRows), not through Prisma's per-call work.
  const rows = await sqlRows<{ wait_ms: number }>(
    db,
    Prisma.sql`
    UPDATE provider_pace
    SET next_slot_at = greatest(clock_timestamp(), next_slot_at, hold_off_until) + ${SPACING}
    WHERE provider = ${provider} AND (requests_per_second IS NOT NULL OR hold_off_until > clock_timestamp())
    RETURNING greatest(0, extract(epoch FROM next_slot_at - ${SPACING} - clock_timestamp()) * 1000)::float8 AS wait_ms`,
  );
  return rows[0]?.wait_ms ?? 0;
}

/** The provider asked to wait `ms` (a 429's Retry-After): no process's next slot comes before then. */
export async function holdOffProvider(db: Db, provider: ProviderName, ms: number): Promise<void> {
  const seconds = Math.max(0, ms) / 1000;
  await db.$executeRaw`
    INSERT INTO provider_pace (provider, hold_off_until)
    VALUES (${provider}, clock_timestamp() + make_interval(secs => ${seconds}::float8))
    ON CONFLICT (provider) DO UPDATE
    SET hold_off_until = greatest(provider_pace.hold_off_until, excluded.hold_off_until)`;
}

/** Stores a configured rate where none is stored yet: a rate an admin set is never overwritten. */
export async function seedProviderRate(db: Db, provider: ProviderName, rate: number): Promise<void> {
  await db.$executeRaw`
    INSERT INTO provider_pace (provider, requests_per_second) VALUES (${provider}, ${rate}::float8)
    ON CONFLICT (provider) DO UPDATE SET requests_per_second = excluded.requests_per_second
    WHERE provider_pace.requests_per_second IS NULL AND provider_pace.updated_by_id IS NULL`;
}
