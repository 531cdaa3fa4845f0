"use client";

import { useId, useState } from "react";
import { Button } from "@/components/ui/button";
import { Money } from "@/components/ui/money";
import type { HoldListItem } from "@/lib/services/hold/list-holds";
import { formatAge, permitLabel, stageLabel } from "./format";
import { OperationLink } from "./operation-link";
import { ReleaseForm } from "./release-form";
import { SettleForm } from "./settle-form";

export const OPEN_HOLD_COLUMNS = 7;

/** One open hold with its two decisions; the chosen form opens in a row of its own below. */
export function HoldRow({ hold, canDecide }: { hold: HoldListItem; canDecide: boolean }) {
  const id = useId();
  const [panel, setPanel] = useState<"settle" | "release" | null>(null);
  // Cancelling returns focus to the button that opened the form; a decision moves it to the
  // announcement instead, because this row leaves the list.
  const close = (done?: boolean) => {
    const opener = `${id}-${panel}`;
    setPanel(null);
    if (!done) requestAnimationFrame(() => document.getElementById(opener)?.focus());
  };
  return (
    <>
      <tr
        className={`border-b border-slate-200 ${hold.exposure ? "border-l-4 border-l-amber-600 bg-amber-50" : ""}`}
        data-testid="hold-row"
        data-hold-id={hold.holdId}
      >
        <th scope="row" className="px-3 py-2 text-left font-normal">
          <OperationLink caseId={hold.caseId} operationId={hold.operationId} />
          <span className="block text-xs text-slate-600">
            hold {hold.holdId} · {hold.producer}
          </span>
        </th>
        <td className="px-3 py-2">
          {hold.provider}
          <span className="block text-xs text-slate-600">{hold.model}</span>
        </td>
        <td className="px-3 py-2">
          {hold.stage ? (
            <>
              {stageLabel(hold.stage)}
              <span className="block text-xs text-slate-600">case {hold.caseState}</span>
            </>
          ) : (
            <>
              Send permit
              <span className="block text-xs text-slate-600">{permitLabel(hold.permitStatus)}</span>
            </>
          )}
          {hold.needsDecision ? (
            <span className="mt-1 inline-block rounded bg-amber-200 px-2 py-0.5 text-xs font-semibold text-amber-950">
              {hold.stage ? "Resolved, hold open — needs a decision" : "Provider refused the send — ready to release"}
            </span>
          ) : null}
        </td>
        <td className="px-3 py-2 text-right">
          <Money micros={hold.amountMicros} currency={hold.currency} />
        </td>
        <td className="px-3 py-2">{formatAge(hold.ageSeconds)}</td>
        <td className="px-3 py-2">
          {hold.exposure ? (
            <span className="rounded bg-amber-200 px-2 py-0.5 text-xs font-semibold text-amber-950">⚠ Exposure</span>
          ) : (
            <span className="sr-only">no</span>
          )}
        </td>
        <td className="px-3 py-2">
          {canDecide ? (
            <div className="flex gap-2">
              <Button
                id={`${id}-settle`}
                variant="secondary"
                className="px-3 py-1"
                aria-expanded={panel === "settle"}
                aria-controls={`${id}-panel`}
                onClick={() => setPanel(panel === "settle" ? null : "settle")}
              >
                Settle…
              </Button>
              <Button
                id={`${id}-release`}
                variant="secondary"
                className="px-3 py-1"
                aria-expanded={panel === "release"}
                aria-controls={`${id}-panel`}
                onClick={() => setPanel(panel === "release" ? null : "release")}
              >
                Release…
              </Button>
            </div>
          ) : (
            <span className="text-xs text-slate-600">view only</span>
          )}
        </td>
      </tr>
      {panel ? (
        <tr className="border-b border-slate-300 bg-slate-50">
          <td colSpan={OPEN_HOLD_COLUMNS} className="px-3 py-3" id={`${id}-panel`}>
            {panel === "settle" ? (
              <SettleForm hold={hold} onClose={close} />
            ) : (
              <ReleaseForm hold={hold} onClose={close} />
            )}
          </td>
        </tr>
      ) : null}
    </>
  );
}
