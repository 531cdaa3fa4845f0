import Link from "next/link";
import { Money } from "@/components/ui/money";
import { Cell, NumCell, Row, RowHeader, Table, TableHead } from "@/components/ui/table";
import { Time } from "@/components/ui/time";
import type { HoldStatus } from "@/lib/domain/holds";
import type { HoldListItem } from "@/lib/services/hold/list-holds";
import { financeHref } from "./finance-href";
import { HoldRow } from "./hold-row";
import { OperationLink } from "./operation-link";

const TABS: { status: HoldStatus; label: string }[] = [
  { status: "held", label: "Held" },
  { status: "settled", label: "Settled" },
  { status: "released", label: "Released" },
];

/** Status tabs are links (the list is server-rendered); the current one is marked for assistive tech. */
export function HoldStatusTabs({
  current,
  counts,
  producer,
  operation,
}: {
  current: HoldStatus;
  counts: Record<HoldStatus, number>;
  producer?: string;
  /** A search by operation carries over from tab to tab. */
  operation?: string;
}) {
  return (
    <nav aria-label="Hold status" className="mt-3">
      <ul className="flex gap-1 border-b border-slate-300 text-sm">
        {TABS.map((tab) => {
          const active = tab.status === current;
          return (
            <li key={tab.status}>
              <Link
                href={financeHref({ status: tab.status, operation }, producer)}
                aria-current={active ? "page" : undefined}
                className={`-mb-px inline-block rounded-t border px-3 py-1.5 ${
                  active ? "border-slate-300 border-b-white bg-white font-semibold" : "border-transparent text-brand"
                }`}
              >
                {tab.label} ({counts[tab.status]})
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}

export function OpenHoldsTable({ items, canDecide }: { items: HoldListItem[]; canDecide: boolean }) {
  return (
    <Table caption="Open holds, oldest first; exposure rows are marked “Exposure”">
      <TableHead
        columns={[
          "Operation",
          "Provider / model",
          "Case stage",
          { label: "Held", align: "right" },
          { label: "Waiting", sort: "descending" },
          "Exposure",
          "Decision",
        ]}
      />
      <tbody>
        {items.map((hold) => (
          <HoldRow key={hold.id} hold={hold} canDecide={canDecide} />
        ))}
      </tbody>
    </Table>
  );
}

export function ResolvedHoldsTable({ items }: { items: HoldListItem[] }) {
  return (
    <Table caption="Resolved holds, most recently decided first">
      <TableHead
        columns={[
          "Operation",
          { label: "Held", align: "right" },
          { label: "Settled", align: "right" },
          { label: "Released", align: "right" },
          { label: "Overage", align: "right" },
          { label: "Decided", sort: "descending" },
          "Accounting note",
        ]}
      />
      <tbody>
        {items.map((hold) => (
          <Row key={hold.id} data-testid="hold-row">
            <RowHeader className="font-normal">
              <OperationLink caseId={hold.caseId} operationId={hold.operationId} />
              <span className="block text-xs text-slate-600">
                {hold.provider} · {hold.model} · hold <span data-technical>{hold.holdId}</span>
              </span>
            </RowHeader>
            <NumCell>
              <Money micros={hold.amountMicros} currency={hold.currency} />
            </NumCell>
            <NumCell>
              <Money micros={hold.settledMicros} currency={hold.currency} />
            </NumCell>
            <NumCell>
              <Money micros={hold.releasedMicros} currency={hold.currency} />
            </NumCell>
            <NumCell>
              <Money micros={hold.overageMicros} currency={hold.currency} />
              {hold.overageMicros ? <span className="block text-xs text-amber-900">⚑ flagged</span> : null}
            </NumCell>
            <Cell>
              <Time at={hold.resolvedAt} />
              <span className="block text-xs text-slate-600">{hold.decidedBy ?? "—"}</span>
            </Cell>
            <Cell className="max-w-xs break-words">{hold.decisionNote ?? "—"}</Cell>
          </Row>
        ))}
      </tbody>
    </Table>
  );
}
