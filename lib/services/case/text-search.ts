import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { sqlRows } from "@/lib/db/sql-rows";
import { likePattern } from "@/lib/domain/queue-search";

// The indexed expressions of migration 20261206120000_queue_work_first, spelled exactly as there.
const SUMMARY_TEXT = Prisma.sql`coalesce(last_evidence->>'summary', '')`;
const NOTE_TEXT = Prisma.sql`coalesce(e.evidence->>'text', '')`;

/**
 * Cases whose evidence summary (what the producer parked it with, the provider's error among it) or
 * one of whose notes contains the text, in any letter case, within the reader's producers: each
 * half reads its own trigram index (decision 063). Up to `cap` matches are fetched by id, as the ID
 * search does (case-filter.ts); past that the condition is left to the page's own order and index.
 */
export async function textSearchCondition(db: Db, text: string, scope: Prisma.Sql[], cap: number): Promise<Prisma.Sql> {
  const pattern = likePattern(text);
  const inScope = scope.length > 0 ? Prisma.sql` AND ${Prisma.join(scope, " AND ")}` : Prisma.empty;
  const notes = Prisma.sql`SELECT e.case_id FROM audit_events e
    WHERE e.kind = 'note_added' AND ${NOTE_TEXT} ILIKE ${pattern} AND e.case_id IS NOT NULL`;
  const hits = await sqlRows<{ id: string }>(
    db,
    Prisma.sql`SELECT id::text FROM cases WHERE ${SUMMARY_TEXT} ILIKE ${pattern}${inScope}
      UNION
      SELECT id::text FROM cases WHERE id IN (${notes})${inScope}
      LIMIT ${cap + 1}`,
  );
  if (hits.length <= cap) return Prisma.sql`id = ANY(${hits.map((row) => row.id)}::uuid[])`;
  return Prisma.sql`(${SUMMARY_TEXT} ILIKE ${pattern} OR id IN (${notes}))`;
}
