"use client";

import { useId, useState } from "react";
import { Button } from "@/components/ui/button";
import { formatAge } from "@/components/ui/format";
import { stageLabel, stateLabel } from "@/components/ui/labels";
import { Money } from "@/components/ui/money";
import { Cell, NumCell, Row, RowHeader } from "@/components/ui/table";
import type { HoldListItem } from "@/lib/services/hold/list-holds";
import { OperationLink } from "./operation-link";
import { ReleaseForm } from "./release-form";
import { SettleForm } from "./settle-form";
import { permitLabel } from "./words";

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
      <Row
        className={hold.exposure ? "border-l-4 border-l-amber-600 bg-amber-50" : ""}
        data-testid="hold-row"
        data-hold-id={hold.holdId}
      >
        <RowHeader className="font-normal">
          <OperationLink caseId={hold.caseId} operationId={hold.operationId} />
          <span className="block text-xs text-slate-600">
            hold <span data-technical>{hold.holdId}</span> · {hold.producer}
          </span>
        </RowHeader>
        <Cell>
          {hold.provider}
          <span className="block text-xs text-slate-600">{hold.model}</span>
        </Cell>
        <Cell>
          {hold.stage ? (
            <>
              {stageLabel(hold.stage)}
              <span className="block text-xs text-slate-600">
                Case: {hold.caseState ? stateLabel(hold.caseState) : "—"}
              </span>
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
        </Cell>
        <NumCell>
          <Money micros={hold.amountMicros} currency={hold.currency} />
        </NumCell>
        <Cell>{formatAge(hold.ageSeconds)}</Cell>
        <Cell>
          {hold.exposure ? (
            <span className="rounded bg-amber-200 px-2 py-0.5 text-xs font-semibold text-amber-950">⚠ Exposure</span>
          ) : (
            <span className="sr-only">no</span>
          )}
        </Cell>
        <Cell>
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
              {hold.completed ? (
                // DESIGN rule 18: the job is known completed, so it is charged: settle only.
                <span className="self-center text-xs text-slate-700" title={hold.completed}>
                  completed: settle it
                </span>
              ) : (
                <Button
                  id={`${id}-release`}
                  variant="secondary"
                  className="px-3 py-1"
                  aria-expanded={panel === "release"}
                  aria-controls={`${id}-panel`}
                  onClick={() => setPanel(panel === "release" ? null : "release")}
                >
                  {hold.outcomeUnknown ? "Write off…" : "Release…"}
                </Button>
              )}
            </div>
          ) : (
            <span className="text-xs text-slate-600">view only</span>
          )}
        </Cell>
      </Row>
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
