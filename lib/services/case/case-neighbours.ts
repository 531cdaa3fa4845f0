import type { Db } from "@/lib/db/client";
import type { Principal } from "@/lib/domain/principal";
import { inProducerScope, scopeOf } from "@/lib/domain/producer-scope";
import type { ListCasesQuery } from "@/lib/validation/list-cases";
import { requirePermission } from "../access/actor";
import { cursorAfter, listCases, reverseSort } from "./list-cases";

export type Neighbour = { id: string; operationId: string } | null;

/**
 * The cases before and after one case in a queue view, as the view orders them: the next is the
 * first row after the case's own keyset position, the previous the first after it in the reverse
 * order. A case that has left the view meanwhile still has neighbours where it stood.
 */
export async function caseNeighbours(
  db: Db,
  actor: Principal,
  query: ListCasesQuery,
  caseId: string,
): Promise<{ previous: Neighbour; next: Neighbour }> {
  requirePermission(actor, "case:read");
  const row = await db.case.findUnique({
    where: { id: caseId },
    select: {
      id: true,
      openedAt: true,
      heldMicros: true,
      stage: true,
      provider: true,
      lastAttemptAt: true,
      producer: true,
    },
  });
  if (!row || !inProducerScope(scopeOf(actor), row.producer)) return { previous: null, next: null };
  const reverse = reverseSort(query.sort);
  const [next, previous] = await Promise.all([
    listCases(db, actor, { ...query, limit: 1, cursor: cursorAfter(row, query.sort) }),
    listCases(db, actor, { ...query, sort: reverse, limit: 1, cursor: cursorAfter(row, reverse) }),
  ]);
  const pick = (items: { id: string; operationId: string }[]): Neighbour =>
    items[0] ? { id: items[0].id, operationId: items[0].operationId } : null;
  return { previous: pick(previous.items), next: pick(next.items) };
}
