"use client";

import { useRouter, useSearchParams } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { WaitingOnText } from "@/components/case/case-progress";
import { Badge, StageBadge, StateBadge } from "@/components/ui/badge";
import { formatAge } from "@/components/ui/format-age";
import { describeAttempt, type LastAttempt, type WaitingOn } from "@/lib/domain/case-progress";
import { formatMicros } from "@/lib/domain/money";

export type QueueRow = {
  id: string;
  operationId: string;
  attemptId: string;
  stage: string;
  state: string;
  provider: string;
  model: string;
  providerJobId: string | null;
  heldMicros: number;
  currency: string;
  ageSeconds: number;
  escalationReason?: string | null;
  holdOpen?: boolean;
  waitingOn?: WaitingOn;
  lastAttempt?: LastAttempt | null;
};

const caseHref = (id: string, view: string) => `/cases/${id}${view ? `?from=${encodeURIComponent(view)}` : ""}`;

/**
 * j/k move the highlight, Enter opens the case, x toggles selection (when bulk is offered).
 * Keys are ignored while typing in a field, so the filters stay usable.
 */
export function QueueTable({
  rows,
  selectable,
  selected,
  onToggle,
}: {
  rows: QueueRow[];
  selectable: boolean;
  selected: Set<string>;
  onToggle: (id: string) => void;
}) {
  const router = useRouter();
  // The case page offers the way back to this very view (filters, search, sort).
  const view = useSearchParams().toString();

  const [active, setActive] = useState(0);
  const rowRefs = useRef<(HTMLTableRowElement | null)[]>([]);
  const tableRef = useRef<HTMLTableElement | null>(null);

  useEffect(() => {
    function onKey(event: KeyboardEvent) {
      const target = event.target as HTMLElement | null;
      if (target && ["INPUT", "SELECT", "TEXTAREA"].includes(target.tagName)) return;
      if (event.key === "j") setActive((i) => Math.min(rows.length - 1, i + 1));
      else if (event.key === "k") setActive((i) => Math.max(0, i - 1));
      else if (event.key === "Enter" && rows[active]) router.push(caseHref(rows[active].id, view));
      else if (event.key === "x" && selectable && rows[active]) onToggle(rows[active].id);
      else return;
      event.preventDefault();
    }
    window.addEventListener("keydown", onKey);
    // Keys typed before hydration go nowhere; this mark tells a script (and a test) when they count.
    tableRef.current?.setAttribute("data-keys", "on");
    return () => window.removeEventListener("keydown", onKey);
  }, [rows, active, router, selectable, onToggle, view]);

  useEffect(() => {
    rowRefs.current[active]?.scrollIntoView({ block: "nearest" });
  }, [active]);

  if (rows.length === 0) {
    return (
      <p className="mt-4 rounded border border-slate-300 bg-white p-6 text-center text-slate-700">
        No cases match this view.
      </p>
    );
  }
  return (
    <table ref={tableRef} className="mt-4 w-full border-collapse bg-white text-left text-sm">
      <caption className="sr-only">Cases; j and k move, Enter opens</caption>
      <thead>
        <tr className="border-b border-slate-300">
          {selectable && (
            <th scope="col" className="px-2 py-2">
              <span className="sr-only">Select</span>
            </th>
          )}
          <th scope="col" className="px-2 py-2">
            Operation
          </th>
          <th scope="col" className="px-2 py-2">
            Stage
          </th>
          <th scope="col" className="px-2 py-2">
            State
          </th>
          <th scope="col" className="px-2 py-2">
            Waiting on
          </th>
          <th scope="col" className="px-2 py-2">
            Provider / model
          </th>
          <th scope="col" className="px-2 py-2">
            Provider job
          </th>
          <th scope="col" className="px-2 py-2 text-right">
            Age
          </th>
          <th scope="col" className="px-2 py-2 text-right">
            On hold
          </th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row, index) => (
          <tr
            key={row.id}
            ref={(el) => {
              rowRefs.current[index] = el;
            }}
            aria-selected={index === active}
            data-testid="queue-row"
            onClick={() => setActive(index)}
            className={`border-b border-slate-200 ${index === active ? "bg-sky-50 outline outline-2 outline-brand" : ""}`}
          >
            {selectable && (
              <td className="px-2 py-1.5">
                <input
                  type="checkbox"
                  aria-label={`Select ${row.operationId}`}
                  checked={selected.has(row.id)}
                  onChange={() => onToggle(row.id)}
                />
              </td>
            )}
            <td className="px-2 py-1.5">
              <a href={caseHref(row.id, view)} className="font-medium text-brand underline">
                {row.operationId}
              </a>
              <div className="text-xs text-slate-600">{row.attemptId}</div>
            </td>
            <td className="px-2 py-1.5">
              <StageBadge stage={row.stage} />
            </td>
            <td className="px-2 py-1.5">
              <StateBadge state={row.state} />
              <RowFlags row={row} />
            </td>
            <td className="px-2 py-1.5">
              {row.waitingOn ? <WaitingOnText waiting={row.waitingOn} short /> : null}
              {row.waitingOn ? <div className="text-xs text-slate-700">{row.waitingOn.why}</div> : null}
            </td>
            <td className="px-2 py-1.5">
              {row.provider}
              <div className="text-xs text-slate-600">{row.model}</div>
            </td>
            <td className="px-2 py-1.5 font-mono text-xs">{row.providerJobId ?? "—"}</td>
            <td className="px-2 py-1.5 text-right tabular-nums">{formatAge(row.ageSeconds)}</td>
            <td className="px-2 py-1.5 text-right tabular-nums">{formatMicros(row.heldMicros, row.currency)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Flags on a row: escalated past its deadline (rule 13), its last recovery failed, or resolved with money still held. */
function RowFlags({ row }: { row: QueueRow }) {
  return (
    <>
      {row.escalationReason ? (
        <span className="ml-1" title={row.escalationReason}>
          <Badge tone="danger">escalated</Badge>
        </span>
      ) : null}
      {row.lastAttempt?.failed ? (
        <span className="ml-1" title={describeAttempt(row.lastAttempt)} data-testid="last-attempt-failed">
          <Badge tone="danger">last attempt failed</Badge>
        </span>
      ) : null}
      {row.holdOpen ? (
        <span className="ml-1" title="Resolved, hold open: finance must settle or release it">
          <Badge tone="warn">hold open — needs a decision</Badge>
        </span>
      ) : null}
    </>
  );
}
