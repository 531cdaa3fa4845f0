import type { ListCasesQuery, QueueSort } from "@/lib/validation/list-cases";
import { queueHref } from "@/lib/validation/queue-params";
import type { QueueSortLinks, SortLink } from "./queue-table";
import { SORT_WORDS } from "./sort-words";

/** Each sortable column's link: the first click sorts by it, the next reverses it. */
function sortLink(query: ListCasesQuery, first: QueueSort, second: QueueSort, direction: SortLink["direction"][]) {
  const { cursor: _cursor, ...rest } = query;
  const current = query.sort === first ? 0 : query.sort === second ? 1 : -1;
  const next = current === 0 ? second : first;
  return {
    href: queueHref({ ...rest, sort: next }),
    direction: current === -1 ? "none" : (direction[current] ?? "none"),
    next: `sort ${SORT_WORDS[next]}`,
  } satisfies SortLink;
}

/** The queue's sortable columns (made on the server, so the queue's client code carries no query parser). */
export function sortLinks(query: ListCasesQuery): QueueSortLinks {
  // Age grows downwards when the oldest come first; money falls when the most comes first.
  return {
    age: sortLink(query, "age", "newest", ["descending", "ascending"]),
    held: sortLink(query, "amount", "smallest", ["descending", "ascending"]),
    stage: sortLink(query, "stage", "stage_desc", ["ascending", "descending"]),
    provider: sortLink(query, "provider", "provider_desc", ["ascending", "descending"]),
    // Like age: the first click puts the longest wait since an attempt on top.
    attempt: sortLink(query, "attempt", "attempt_recent", ["ascending", "descending"]),
  };
}
