import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { sqlRows, sqlRowsWithin } from "@/lib/db/sql-rows";
import type { ProducerScope } from "@/lib/domain/producer-scope";
import { likePattern, PARTIAL_SEARCH_MIN } from "@/lib/domain/queue-search";
import type { ListCasesQuery } from "@/lib/validation/list-cases";
import { textSearchCondition } from "./text-search";

/** The filter keys a view, a count and a bulk action share (state, stage and order are each caller's own). */
export type CaseFilter = Pick<
  ListCasesQuery,
  "provider" | "model" | "producer" | "assigneeId" | "minAgeSeconds" | "minAmountMicros" | "currency" | "q" | "text"
>;

/**
 * Up to this many matches, the matching cases are fetched by id and ordered (cheap: at most this
 * many primary-key probes). Beyond it the matches are dense enough that walking the view's own
 * ordered index finds a page after a few thousand rows (docs/performance.md, section 5).
 */
export const SEARCH_IDS_CAP = 5_000;

/**
 * A page's search first reads this many of the view's rows in its order: a fragment many IDs share
 * fills the page there (and that page is exact), before the trigram index would read the long lists
 * of trigrams such a fragment is made of.
 */
export const SEARCH_WINDOW = 1_000;

/** The page a search is for: its own conditions (state, stage, cursor), its order and its size. */
export type SearchPage = { where: Prisma.Sql[]; order: Prisma.Sql; rows: number };

// The indexed expression of migration 20261202050000_queue_search, spelled exactly as there.
const IDS_TEXT = Prisma.sql`(operation_id || E'\\x1f' || attempt_id || E'\\x1f' || coalesce(provider_job_id, ''))`;
// The same text the index cannot serve: the planner then walks the view's ordered index instead.
const IDS_TEXT_UNINDEXED = Prisma.sql`(operation_id || E'\\x1f' || attempt_id || E'\\x1f' || coalesce(provider_job_id, '') || '')`;

/** How long a page may spend walking its ordered index for a dense search before the trigram index reads it instead. */
export const SEARCH_WALK_BUDGET_MS = 150;

/**
 * What a search matches. An ID typed in full finds its cases by the IDs' own indexes (a pasted ID is
 * the most common search, and the trigram index would read the long lists of trigrams every ID
 * shares). Otherwise any case whose operation, attempt or provider job ID contains the text, in any
 * case; text too short for a trigram names a whole ID only. A count goes to the trigram index
 * straight away (it runs within a time budget of its own: count-cases.ts). A page looks in the view's
 * first rows first, then fetches up to `cap` matches by the trigram index; past that the matches are
 * dense, and the page walks the view's ordered index for them, within a budget, because a match
 * rare in the view's order would make that walk read the whole view.
 */
async function searchCondition(
  db: Db,
  q: string,
  cap: number,
  counting: boolean,
  page?: SearchPage,
): Promise<Prisma.Sql> {
  const exact = exactIdCondition(q);
  if (q.length < PARTIAL_SEARCH_MIN) return exact;
  const whole = await sqlRows<{ id: string }>(
    db,
    Prisma.sql`SELECT id::text FROM cases WHERE ${exact} LIMIT ${cap + 1}`,
  );
  if (whole.length > cap) return exact;
  if (whole.length > 0) return byIds(whole);
  const pattern = likePattern(q);
  const indexed = Prisma.sql`${IDS_TEXT} ILIKE ${pattern}`;
  if (counting) return indexed;
  if (page) {
    const first = await sqlRows<{ id: string }>(
      db,
      Prisma.sql`SELECT id::text FROM (
        SELECT id, opened_at, held_micros, stage, provider, last_attempt_at, ${IDS_TEXT} AS ids FROM cases WHERE ${Prisma.join(page.where, " AND ")}
        ORDER BY ${page.order} LIMIT ${SEARCH_WINDOW}) w
      WHERE ids ILIKE ${pattern} ORDER BY ${page.order} LIMIT ${page.rows}`,
    );
    if (first.length === page.rows) return byIds(first);
  }
  const hits = await sqlRows<{ id: string }>(
    db,
    Prisma.sql`SELECT id::text FROM cases WHERE ${indexed} LIMIT ${cap + 1}`,
  );
  if (hits.length <= cap) return byIds(hits);
  if (!page) return indexed;
  const walked = await sqlRowsWithin<{ id: string }>(
    db,
    Prisma.sql`SELECT id::text FROM cases WHERE ${Prisma.join(page.where, " AND ")} AND ${IDS_TEXT_UNINDEXED} ILIKE ${pattern}
               ORDER BY ${page.order} LIMIT ${page.rows}`,
    SEARCH_WALK_BUDGET_MS,
  );
  return walked ? byIds(walked) : indexed;
}

/** Cases with the text as one of their IDs in full, by the IDs' own indexes. */
const exactIdCondition = (q: string) =>
  Prisma.sql`(operation_id = ${q} OR attempt_id = ${q} OR provider_job_id = ${q})`;

const byIds = (rows: { id: string }[]) => Prisma.sql`id = ANY(${rows.map((row) => row.id)}::uuid[])`;

/** Cases of the producers in `scope` only; none for every producer. */
export function scopeConditions(scope: ProducerScope): Prisma.Sql[] {
  return scope === null ? [] : [Prisma.sql`producer = ANY(${[...scope]}::text[])`];
}

/**
 * The filter as SQL conditions over `cases`, each spelled so that an index can serve it, within
 * the producers the reader may see (`scope`, decision 035): every caller passes it, so no view,
 * count or bulk action can reach past a person's producers.
 */
export async function caseFilterConditions(
  db: Db,
  filter: CaseFilter,
  scope: ProducerScope,
  now: Date,
  {
    searchIdsCap = SEARCH_IDS_CAP,
    counting = false,
    page,
    exactIds = false,
  }: {
    searchIdsCap?: number;
    counting?: boolean;
    page?: SearchPage;
    /** The search as whole IDs only, without looking first (a caller that then falls back to the full search). */
    exactIds?: boolean;
  } = {},
): Promise<Prisma.Sql[]> {
  const where: Prisma.Sql[] = scopeConditions(scope);
  if (filter.provider) where.push(Prisma.sql`provider = ${filter.provider}`);
  if (filter.model) where.push(Prisma.sql`model = ${filter.model}`);
  if (filter.producer) where.push(Prisma.sql`producer = ${filter.producer}`);
  if (filter.assigneeId) where.push(Prisma.sql`assignee_id = ${filter.assigneeId}::uuid`);
  if (filter.minAgeSeconds !== undefined)
    where.push(Prisma.sql`opened_at <= ${new Date(now.getTime() - filter.minAgeSeconds * 1000)}`);
  if (filter.currency) where.push(Prisma.sql`currency = ${filter.currency}`);
  if (filter.minAmountMicros !== undefined) where.push(Prisma.sql`held_micros >= ${BigInt(filter.minAmountMicros)}`);
  if (filter.q && exactIds) {
    where.push(exactIdCondition(filter.q));
  } else if (filter.q) {
    const pageWhere = page ? { ...page, where: [...page.where, ...where] } : undefined;
    where.push(await searchCondition(db, filter.q, searchIdsCap, counting, pageWhere));
  }
  if (filter.text) where.push(await textSearchCondition(db, filter.text, scopeConditions(scope), searchIdsCap));
  return where;
}
