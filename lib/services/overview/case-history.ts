import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { sqlRows } from "@/lib/db/sql-rows";
import { producerIn, utcHourOf } from "@/lib/db/stat-figures";
import {
  fillHours,
  HISTORY_DAYS,
  type HistoryHour,
  type HistorySeries,
  PARKED_AGAIN_KINDS,
} from "@/lib/domain/case-history";
import type { Principal } from "@/lib/domain/principal";
import type { Stage } from "@/lib/domain/stages";
import { requirePermission, visibleProducers } from "../access/actor";

export type CaseHistory = { from: string; hours: HistoryHour[] };

/**
 * Cases opened, resolved and parked again per UTC hour over the last HISTORY_DAYS (decision 066),
 * optionally of one stage or one provider, limited to the producers the person may see. Opened and
 * resolved are read from indexes on the cases' own times that carry stage, provider and producer
 * (index-only scans of the window's rows); parked again from the audit log's (kind, created_at)
 * index, each event's case found by its key.
 */
export async function caseHistory(
  db: Db,
  actor: Principal,
  query: { stage?: Stage | null; provider?: string | null; now?: Date },
): Promise<CaseHistory> {
  requirePermission(actor, "case:read");
  const producers = visibleProducers(actor, null);
  const now = query.now ?? new Date();
  const hours = HISTORY_DAYS * 24;
  const from = new Date(utcHourOf(now).getTime() - (hours - 1) * 3_600_000);
  const filters = (alias: string) => {
    const c = (column: string) => Prisma.raw(`${alias}.${column}`);
    return Prisma.sql`${producerIn(producers, c("producer"))}
      ${query.stage ? Prisma.sql`AND ${c("stage")} = ${query.stage}::"Stage"` : Prisma.empty}
      ${query.provider ? Prisma.sql`AND ${c("provider")} = ${query.provider}` : Prisma.empty}`;
  };
  const bin = (column: Prisma.Sql) => Prisma.sql`date_bin('1 hour', ${column}, TIMESTAMPTZ '2000-01-01 00:00:00+00')`;
  const rows = await sqlRows<{ hour: Date; series: HistorySeries; count: bigint }>(
    db,
    Prisma.sql`
    SELECT ${bin(Prisma.sql`c.opened_at`)} AS hour, 'opened' AS series, count(*) AS count
      FROM cases c WHERE c.opened_at >= ${from} AND ${filters("c")} GROUP BY 1
    UNION ALL
    SELECT ${bin(Prisma.sql`c.resolved_at`)}, 'resolved', count(*)
      FROM cases c WHERE c.resolved_at >= ${from} AND c.resolved_at IS NOT NULL AND ${filters("c")} GROUP BY 1
    UNION ALL
    SELECT ${bin(Prisma.sql`a.created_at`)}, 'parked', count(*)
      FROM audit_events a JOIN cases c ON c.id = a.case_id
     WHERE a.kind = ANY(${[...PARKED_AGAIN_KINDS]}::text[]) AND a.created_at >= ${from} AND ${filters("c")}
     GROUP BY 1`,
  );
  return {
    from: from.toISOString(),
    hours: fillHours(
      from,
      hours,
      rows.map((r) => ({ hour: r.hour, series: r.series, count: Number(r.count) })),
    ),
  };
}
