"use client";

import { type ReactNode, useCallback, useState } from "react";
import type { BulkVerb } from "@/lib/domain/bulk-verbs";
import type { ListCasesQuery } from "@/lib/validation/list-cases";
import { BulkActions } from "./bulk-actions";
import { type QueueRow, type QueueSortLinks, QueueTable } from "./queue-table";

/**
 * The queue's rows, selectable when the user has a bulk verb; the bulk bar offers exactly the verbs
 * the user's roles allow, and the dry run says, case by case, which of the picked cases allow it.
 */
export function QueueView({
  rows,
  query,
  bulkVerbs,
  assignees,
  sortLinks,
  empty,
}: {
  rows: QueueRow[];
  query: ListCasesQuery;
  bulkVerbs: BulkVerb[];
  assignees: { id: string; name: string }[];
  sortLinks: QueueSortLinks;
  empty: ReactNode;
}) {
  const [selected, setSelected] = useState<Set<string>>(new Set());
  // The bulk box waits until a case is picked (it then offers the picked cases or the whole view),
  // so the rows come first (decision 063); once shown it stays, so its outcome stays on screen.
  const [bulkShown, setBulkShown] = useState(false);
  const toggle = useCallback((id: string) => {
    setBulkShown(true);
    setSelected((current) => {
      const next = new Set(current);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  }, []);
  const bulk = bulkVerbs.length > 0;
  return (
    <>
      {bulk && bulkShown && (
        <BulkActions
          verbs={bulkVerbs}
          assignees={assignees}
          selectedIds={[...selected]}
          filter={query}
          onDone={() => setSelected(new Set())}
        />
      )}
      <QueueTable
        rows={rows}
        selectable={bulk}
        selected={selected}
        onToggle={toggle}
        sortLinks={sortLinks}
        empty={empty}
      />
    </>
  );
}
