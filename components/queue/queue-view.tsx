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
  // The bulk box waits until a case is picked (or is asked for, to act on the whole view), so the
  // rows come first (decision 063); once shown it stays, so its outcome stays on screen.
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
      {bulk && !bulkShown && rows.length > 0 ? (
        <div className="mt-2 text-sm">
          <button type="button" className="text-brand underline" onClick={() => setBulkShown(true)}>
            Act on every case in this view…
          </button>
          <span className="ml-2 text-slate-700">or pick cases (x) to act on them.</span>
        </div>
      ) : null}
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
