import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { sqlRows, sqlRowsWithin } from "@/lib/db/sql-rows";
import { allHours, figureRows, foldWhenDue, type ProducerFilter } from "@/lib/db/stat-figures";
import type { Principal } from "@/lib/domain/principal";
import { STAGES, type Stage } from "@/lib/domain/stages";
import type { ListCasesQuery } from "@/lib/validation/list-cases";
import { producersOf } from "@/lib/validation/producer-filter";
import { requirePermission, visibleProducers } from "../access/actor";
import { viewConditions } from "./list-cases";

/**
 * Counting a view exactly would read every matching row (a million for "all open cases"); past
 * this many the queue says "more than 10,000", which is all a person paging through needs.
 */
export const COUNT_CAP = 10_000;

/**
 * A filter no index serves (a provider and a state, say) is counted by reading the whole table;
 * at a million cases that is 60 to 300 ms. A count that would take longer than this is left
 * uncounted rather than holding the page and a connection for it.
 */
export const COUNT_BUDGET_MS = 120;

/** A view's size up to the cap, or `null` when it could not be counted within the budget. */
export type ViewCount = { count: number; more: boolean } | null;

/** How many cases a queue view holds, up to the cap (its filters as the list applies them). */
export async function countCases(
  db: Db,
  actor: Principal,
  query: ListCasesQuery,
  { now = new Date(), budgetMs = COUNT_BUDGET_MS }: { now?: Date; budgetMs?: number } = {},
): Promise<ViewCount> {
  requirePermission(actor, "case:read");
  const where = await viewConditions(db, actor, { ...query, cursor: undefined }, now, { counting: true });
  const rows = await sqlRowsWithin<{ n: bigint }>(
    db,
    Prisma.sql`SELECT count(*) AS n FROM (SELECT 1 FROM cases WHERE ${Prisma.join(where, " AND ")} LIMIT ${COUNT_CAP + 1}) s`,
    budgetMs,
  );
  if (!rows) return null;
  const n = Number(rows[0]?.n ?? 0n);
  return { count: Math.min(n, COUNT_CAP), more: n > COUNT_CAP };
}

/**
 * Open cases per stage, from the running totals the overview reads (exact, without a scan), of
 * some producers only when `producers` names them.
 */
export async function openCasesByStage(
  db: Db,
  actor: Principal,
  requested: ProducerFilter = null,
): Promise<Record<Stage, number>> {
  requirePermission(actor, "case:read");
  const producers = visibleProducers(actor, requested);
  // Like the overview: past a few thousand pending deltas, fold them before summing.
  await foldWhenDue(db);
  const rows = await sqlRows<{ stage: Stage; open: bigint }>(
    db,
    Prisma.sql`SELECT stage, sum(count)::bigint AS open FROM ${figureRows("open_cases", allHours, producers)} f GROUP BY stage`,
  );
  const counts = Object.fromEntries(STAGES.map((stage) => [stage, 0])) as Record<Stage, number>;
  for (const row of rows) counts[row.stage] = Number(row.open);
  return counts;
}

/** Whether a view narrows the open cases by more than stage and producer (its order and page aside). */
export function narrowsBeyondProducer(query: ListCasesQuery): boolean {
  const { stage: _s, producer: _p, sort: _o, cursor: _c, limit: _l, ...rest } = query;
  return Object.values(rest).some((value) => value !== undefined);
}

/**
 * Each stage's count of a view's cases, for the stage tabs: the running totals when the view is
 * only a producer's open cases (exact, without a scan); otherwise each stage's view counted as the
 * line under the table is (capped, within the count's budget, index-only for the filters the
 * `cases_state_stage_provider` index covers: docs/performance.md §5), so the tabs follow the filters.
 */
export async function stageCounts(db: Db, actor: Principal, query: ListCasesQuery): Promise<Record<Stage, ViewCount>> {
  if (!narrowsBeyondProducer(query)) {
    const open = await openCasesByStage(db, actor, producersOf(query.producer));
    return Object.fromEntries(STAGES.map((stage) => [stage, { count: open[stage], more: false }])) as Record<
      Stage,
      ViewCount
    >;
  }
  const counts = await Promise.all(
    STAGES.map((stage) => countCases(db, actor, { ...query, stage, cursor: undefined })),
  );
  return Object.fromEntries(STAGES.map((stage, index) => [stage, counts[index] ?? null])) as Record<Stage, ViewCount>;
}
