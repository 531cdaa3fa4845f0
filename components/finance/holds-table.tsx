import Link from "next/link";
import { Money } from "@/components/ui/money";
import type { HoldStatus } from "@/lib/domain/holds";
import type { HoldListItem } from "@/lib/services/hold/list-holds";
import { formatWhen } from "./format";
import { HoldRow } from "./hold-row";
import { OperationLink } from "./operation-link";

const TABS: { status: HoldStatus; label: string }[] = [
  { status: "held", label: "Held" },
  { status: "settled", label: "Settled" },
  { status: "released", label: "Released" },
];

const th = "px-3 py-2 font-medium";

/** Status tabs are links (the list is server-rendered); the current one is marked for assistive tech. */
export function HoldStatusTabs({ current, counts }: { current: HoldStatus; counts: Record<HoldStatus, number> }) {
  return (
    <nav aria-label="Hold status" className="mt-3">
      <ul className="flex gap-1 border-b border-slate-300 text-sm">
        {TABS.map((tab) => {
          const active = tab.status === current;
          return (
            <li key={tab.status}>
              <Link
                href={`/finance?status=${tab.status}#holds`}
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
    <table className="w-full border-collapse bg-white text-left text-sm">
      <caption className="sr-only">Open holds, oldest first; exposure rows are marked “Exposure”</caption>
      <thead>
        <tr className="border-b border-slate-300">
          <th scope="col" className={th}>
            Operation
          </th>
          <th scope="col" className={th}>
            Provider / model
          </th>
          <th scope="col" className={th}>
            Case stage
          </th>
          <th scope="col" className={`${th} text-right`}>
            Held
          </th>
          <th scope="col" className={th}>
            Waiting
          </th>
          <th scope="col" className={th}>
            Exposure
          </th>
          <th scope="col" className={th}>
            Decision
          </th>
        </tr>
      </thead>
      <tbody>
        {items.map((hold) => (
          <HoldRow key={hold.id} hold={hold} canDecide={canDecide} />
        ))}
      </tbody>
    </table>
  );
}

export function ResolvedHoldsTable({ items }: { items: HoldListItem[] }) {
  return (
    <table className="w-full border-collapse bg-white text-left text-sm">
      <caption className="sr-only">Resolved holds, most recently decided first</caption>
      <thead>
        <tr className="border-b border-slate-300">
          <th scope="col" className={th}>
            Operation
          </th>
          <th scope="col" className={`${th} text-right`}>
            Held
          </th>
          <th scope="col" className={`${th} text-right`}>
            Settled
          </th>
          <th scope="col" className={`${th} text-right`}>
            Released
          </th>
          <th scope="col" className={`${th} text-right`}>
            Overage
          </th>
          <th scope="col" className={th}>
            Decided
          </th>
          <th scope="col" className={th}>
            Accounting note
          </th>
        </tr>
      </thead>
      <tbody>
        {items.map((hold) => (
          <tr key={hold.id} className="border-b border-slate-200 align-top" data-testid="hold-row">
            <th scope="row" className="px-3 py-2 text-left font-normal">
              <OperationLink caseId={hold.caseId} operationId={hold.operationId} />
              <span className="block text-xs text-slate-600">
                {hold.provider} · {hold.model} · hold {hold.holdId}
              </span>
            </th>
            {[hold.amountMicros, hold.settledMicros, hold.releasedMicros].map((micros, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: fixed columns
              <td key={i} className="px-3 py-2 text-right">
                <Money micros={micros} currency={hold.currency} />
              </td>
            ))}
            <td className="px-3 py-2 text-right">
              <Money micros={hold.overageMicros} currency={hold.currency} />
              {hold.overageMicros ? <span className="block text-xs text-amber-900">⚑ flagged</span> : null}
            </td>
            <td className="px-3 py-2">
              {formatWhen(hold.resolvedAt)}
              <span className="block text-xs text-slate-600">{hold.decidedBy ?? "—"}</span>
            </td>
            <td className="max-w-xs px-3 py-2 break-words">{hold.decisionNote ?? "—"}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
