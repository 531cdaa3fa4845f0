import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { sqlRows } from "@/lib/db/sql-rows";
import { type ProducerFilter, producerIn } from "@/lib/db/stat-figures";
import { toMicrosTotal } from "@/lib/domain/money";

type Row = { currency: string; live: bigint; accepted: bigint; micros: bigint; oldest: Date };

/**
 * Sends in flight under a permit (DESIGN 6a): permitted and not yet reported, or accepted and not
 * yet completed, and not parked. They are not cases (nothing to decide yet), but their money is held, so the
 * overview shows how many, how old, and how much. Read from the partial index of open permits.
 */
export async function inFlightPermits(db: Db, now: Date, producers: ProducerFilter = null) {
  const rows = await sqlRows<Row>(
    db,
    Prisma.sql`
    SELECT h.currency, count(*) FILTER (WHERE p.status = 'live') AS live,
           count(*) FILTER (WHERE p.status = 'accepted') AS accepted,
           sum(h.amount_micros)::bigint AS micros, min(p.created_at) AS oldest
    FROM send_permits p JOIN holds h ON h.id = p.hold_ref
    WHERE p.status IN ('live', 'accepted') AND p.case_ref IS NULL AND h.status = 'held'
      AND ${producerIn(producers, Prisma.sql`p.producer`)}
    GROUP BY h.currency ORDER BY h.currency`,
  );
  const oldest = rows.reduce<Date | null>((min, r) => (min === null || r.oldest < min ? r.oldest : min), null);
  return {
    sending: rows.reduce((n, r) => n + Number(r.live), 0),
    accepted: rows.reduce((n, r) => n + Number(r.accepted), 0),
    oldestAgeSeconds: oldest ? Math.max(0, Math.floor((now.getTime() - oldest.getTime()) / 1000)) : null,
    held: rows.map((r) => ({ currency: r.currency, micros: toMicrosTotal(r.micros) })),
  };
}
