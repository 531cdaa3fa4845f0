"use client";

import { type ReactNode, useCallback, useState } from "react";
import type { ListCasesQuery } from "@/lib/validation/list-cases";
import { BulkApprove } from "./bulk-approve";
import { type QueueRow, QueueTable, type SortLink } from "./queue-table";

/** Bulk is offered only when the view is one stage whose recovery is safe to approve in bulk. */
export function QueueView({
  rows,
  query,
  canApprove,
  sortLinks,
  empty,
}: {
  rows: QueueRow[];
  query: ListCasesQuery;
  canApprove: boolean;
  sortLinks: { age: SortLink; held: SortLink };
  empty: ReactNode;
}) {
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const bulkStage =
    canApprove &&
    (query.stage === "polling" || query.stage === "delivery") &&
    (!query.state || query.state === "parked")
      ? query.stage
      : null;
  const toggle = useCallback((id: string) => {
    setSelected((current) => {
      const next = new Set(current);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  }, []);
  const selectableRows = bulkStage ? rows.filter((r) => r.state === "parked") : [];
  return (
    <>
      {bulkStage && (
        <BulkApprove
          stage={bulkStage}
          selectedIds={[...selected]}
          filter={query}
          onDone={() => setSelected(new Set())}
        />
      )}
      <QueueTable
        rows={rows}
        selectable={selectableRows.length > 0}
        selected={selected}
        onToggle={toggle}
        sortLinks={sortLinks}
        empty={empty}
      />
    </>
  );
}
