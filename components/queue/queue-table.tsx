"use client";

import { useRouter, useSearchParams } from "next/navigation";
import { type ReactNode, useEffect, useRef, useState } from "react";
import { WaitingOnText } from "@/components/case/case-progress";
import { Badge, StageBadge, StateBadge } from "@/components/ui/badge";
import { ESCALATION_WORDS, inWords } from "@/components/ui/code-words";
import { formatAge } from "@/components/ui/format";
import { type SortLink, Table, TableHead } from "@/components/ui/table";
import { Time, TimeTitled } from "@/components/ui/time";
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
  /** When this episode's last recovery action ended; null when none has (the order by last attempt). */
  lastAttemptAt?: string | null;
  escalationReason?: string | null;
  escalatedAt?: string | null;
  holdOpen?: boolean;
  waitingOn?: WaitingOn;
  lastAttempt?: LastAttempt | null;
};

const caseHref = (id: string, view: string) => `/cases/${id}${view ? `?from=${encodeURIComponent(view)}` : ""}`;

/**
 * j/k move the highlight, Enter opens the case, x toggles selection (when bulk is offered).
 * Keys are ignored while typing in a field, so the filters stay usable.
 */
export type { SortLink };

/** The columns a person sorts the queue by. */
export type QueueSortLinks = { age: SortLink; held: SortLink; stage: SortLink; provider: SortLink; attempt: SortLink };

export function QueueTable({
  rows,
  selectable,
  selected,
  onToggle,
  sortLinks,
  empty,
}: {
  rows: QueueRow[];
  selectable: boolean;
  selected: Set<string>;
  onToggle: (id: string) => void;
  sortLinks: QueueSortLinks;
  empty: ReactNode;
}) {
  const router = useRouter();
  // The case page offers the way back to this very view (filters, search, sort).
  const view = useSearchParams().toString();

  // The cursor stays on its case when the live queue brings new rows or moves this one.
  const [activeId, setActiveId] = useState<string | null>(null);
  const found = rows.findIndex((row) => row.id === activeId);
  // A case that left the view hands the cursor to the row now where it was.
  const lastIndex = useRef(0);
  const active = found >= 0 ? found : Math.max(0, Math.min(lastIndex.current, rows.length - 1));
  lastIndex.current = active;
  const setActive = (next: (index: number) => number) => setActiveId(rows[next(active)]?.id ?? null);
  const rowRefs = useRef<(HTMLTableRowElement | null)[]>([]);
  const fresh = useFreshRows(rows);

  useEffect(() => {
    function onKey(event: KeyboardEvent) {
      const target = event.target as HTMLElement | null;
      if (target && ["INPUT", "SELECT", "TEXTAREA"].includes(target.tagName)) return;
      // Enter on a link or a button is that control's own.
      if (event.key === "Enter" && target && ["A", "BUTTON"].includes(target.tagName)) return;
      if (event.key === "j") setActive((i) => Math.min(rows.length - 1, i + 1));
      else if (event.key === "k") setActive((i) => Math.max(0, i - 1));
      else if (event.key === "Enter" && rows[active]) router.push(caseHref(rows[active].id, view));
      else if (event.key === "x" && selectable && rows[active]) onToggle(rows[active].id);
      else return;
      event.preventDefault();
    }
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  });
  // Keys typed before hydration go nowhere; this mark tells a script (and a test) when they count.
  const [keysOn, setKeysOn] = useState(false);
  useEffect(() => setKeysOn(true), []);

  useEffect(() => {
    if (activeId) rowRefs.current[active]?.scrollIntoView({ block: "nearest" });
  }, [active, activeId]);

  if (rows.length === 0) {
    return <div className="mt-4 rounded border border-slate-300 bg-white p-6 text-center text-slate-700">{empty}</div>;
  }
  return (
    <Table caption="Cases; j and k move, Enter opens" className="mt-2" data-keys={keysOn ? "on" : undefined}>
      <TableHead
        cell="px-2 py-2"
        columns={[
          ...(selectable ? [{ label: "Select", hidden: true }] : []),
          "Operation",
          { label: "Stage / state", sortLink: sortLinks.stage },
          { label: "Waiting on", className: "hidden md:table-cell" },
          { label: "Provider / model", className: "hidden lg:table-cell", sortLink: sortLinks.provider },
          { label: "Provider job", className: "hidden lg:table-cell" },
          // Only on the widest screens: at 1280 px its width would push ten cases below the fold (decision 069).
          { label: "Last attempt", className: "hidden 2xl:table-cell", sortLink: sortLinks.attempt },
          { label: "Age", align: "right", sortLink: sortLinks.age },
          { label: "On hold", align: "right", sortLink: sortLinks.held },
        ]}
      />
      <tbody>
        {rows.map((row, index) => (
          <tr
            key={row.id}
            ref={(el) => {
              rowRefs.current[index] = el;
            }}
            aria-selected={index === active}
            data-testid="queue-row"
            data-case-id={row.id}
            data-new={fresh.has(row.id) ? "" : undefined}
            onClick={() => setActiveId(row.id)}
            className={`border-b border-slate-200 ${index === active ? "bg-sky-50 outline outline-2 outline-brand" : fresh.has(row.id) ? "bg-emerald-50" : ""}`}
          >
            {selectable && (
              <td className="px-2 py-1">
                <input
                  type="checkbox"
                  aria-label={`Select ${row.operationId}`}
                  checked={selected.has(row.id)}
                  onChange={() => onToggle(row.id)}
                />
              </td>
            )}
            <td className="px-2 py-1">
              <a href={caseHref(row.id, view)} className="break-all font-medium text-brand underline">
                {row.operationId}
              </a>
              <div className="break-all text-xs text-slate-700">{row.attemptId}</div>
            </td>
            <td className="px-2 py-1">
              {/* Stage, state and flags on one line: wrapped, flags made a row a line taller, and ten
                  cases no longer fitted above the fold (decision 063). */}
              <div className="flex gap-1 whitespace-nowrap" data-testid="row-badges">
                <StageBadge stage={row.stage} />
                <StateBadge state={row.state} />
                <RowFlags row={row} />
              </div>
              {row.waitingOn ? (
                <div className="mt-1 text-xs md:hidden">
                  <WaitingOnText waiting={row.waitingOn} short testId="waiting-on-narrow" />
                </div>
              ) : null}
            </td>
            <td className="hidden px-2 py-1 md:table-cell">
              {row.waitingOn ? <WaitingOnText waiting={row.waitingOn} short /> : null}
              {row.waitingOn && row.waitingOn.party !== "nobody" ? (
                // One line per row, so ten cases fit above the fold (decision 063); the whole reason is its title.
                <div className="max-w-64 truncate text-xs text-slate-700" title={row.waitingOn.why}>
                  {row.waitingOn.why}
                </div>
              ) : null}
            </td>
            <td className="hidden px-2 py-1 lg:table-cell">
              <span data-testid="row-provider">{row.provider}</span>
              <div className="text-xs text-slate-700">{row.model}</div>
            </td>
            <td className="hidden px-2 py-1 font-mono text-xs lg:table-cell">
              {/* One line, so a long job ID does not make its row three lines tall (decision 063). */}
              <div className="max-w-40 truncate" title={row.providerJobId ?? undefined}>
                {row.providerJobId ?? "—"}
              </div>
            </td>
            <td className="hidden whitespace-nowrap px-2 py-1 text-xs 2xl:table-cell" data-testid="row-last-attempt">
              <Time at={row.lastAttemptAt} fallback="never" />
            </td>
            <td className="px-2 py-1 text-right tabular-nums">{formatAge(row.ageSeconds)}</td>
            <td className="px-2 py-1 text-right tabular-nums">{formatMicros(row.heldMicros, row.currency)}</td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}

/** Flags on a row: escalated past its deadline (rule 13), its last recovery failed, or resolved with money still held. */
function RowFlags({ row }: { row: QueueRow }) {
  return (
    <>
      {row.escalationReason ? (
        row.escalatedAt ? (
          <TimeTitled at={row.escalatedAt} before={`${inWords(ESCALATION_WORDS, row.escalationReason)}; escalated `}>
            <Badge tone="danger">escalated</Badge>
          </TimeTitled>
        ) : (
          <span title={inWords(ESCALATION_WORDS, row.escalationReason)}>
            <Badge tone="danger">escalated</Badge>
          </span>
        )
      ) : null}
      {row.lastAttempt?.failed ? (
        <span title={describeAttempt(row.lastAttempt)} data-testid="last-attempt-failed">
          <Badge tone="danger">
            {row.lastAttempt.count > 1 ? `attempt ${row.lastAttempt.count} failed` : "last attempt failed"}
          </Badge>
        </span>
      ) : null}
      {row.holdOpen ? (
        <span title="Resolved, hold open: finance must settle or release it">
          <Badge tone="warn">hold open — needs a decision</Badge>
        </span>
      ) : null}
    </>
  );
}

/** Rows that were not on the page a moment ago (a live refresh brought them), marked until the next. */
function useFreshRows(rows: QueueRow[]): Set<string> {
  const seen = useRef<Set<string> | null>(null);
  const [fresh, setFresh] = useState<Set<string>>(new Set());
  useEffect(() => {
    const ids = new Set(rows.map((row) => row.id));
    const before = seen.current;
    seen.current = ids;
    setFresh(before ? new Set([...ids].filter((id) => !before.has(id))) : new Set());
  }, [rows]);
  return fresh;
}
