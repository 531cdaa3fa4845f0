"use client";

import { useId, useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { ConfirmStep } from "@/components/ui/confirm-step";
import { focusProblem, TextField } from "@/components/ui/form";
import { Money } from "@/components/ui/money";
import { settleHoldAction } from "@/lib/actions/finance-actions";
import { formatMicros } from "@/lib/domain/money";
import { useAnnounce } from "./announcer";
import { checkDecisionText, type DecisionErrors, DecisionFields } from "./decision-fields";
import { OpenCaseWarning } from "./open-case-warning";
import { chargeExamples, previewSettle } from "./settle-preview";
import { useDecision } from "./use-decision";

/** What a finance decision on one hold shows of it: the hold, its operation, its money and its case. */
export type DecidedHold = {
  id: string;
  holdId: string;
  operationId: string;
  amountMicros: number;
  currency: string;
  stage: string | null;
  caseState: string | null;
};
type Errors = DecisionErrors & { chargeMicros?: string };

/** Settle a hold fully or partly: the charge as typed, previewed as settle / release / overage. */
export function SettleForm({ hold, onClose }: { hold: DecidedHold; onClose: (done?: boolean) => void }) {
  const id = useId();
  const formRef = useRef<HTMLFormElement>(null);
  const announce = useAnnounce();
  const { decide, back, pending, result } = useDecision(settleHoldAction);
  const [charge, setCharge] = useState("");
  const [text, setText] = useState({ note: "", evidence: "" });
  const [errors, setErrors] = useState<Errors>({});
  const [confirming, setConfirming] = useState(false);
  const preview = previewSettle(hold.amountMicros, hold.currency, charge);
  const examples = chargeExamples(hold.currency);
  const money = (micros: number) => formatMicros(micros, hold.currency);

  function review(event: React.FormEvent) {
    event.preventDefault();
    const found: Errors = { ...(preview.ok ? {} : { chargeMicros: preview.message }), ...checkDecisionText(text) };
    setErrors(found);
    const first = Object.keys(found)[0];
    if (first) focusProblem(formRef.current, first);
    else setConfirming(true);
  }

  function confirm() {
    if (!preview.ok) return;
    decide({ holdRef: hold.id, chargeMicros: preview.chargeMicros, ...text }, () => {
      announce(
        `${hold.operationId} (hold ${hold.holdId}) settled: ${money(preview.settledMicros)} charged, ${money(preview.releasedMicros)} released` +
          (preview.overageMicros ? `, ${money(preview.overageMicros)} booked as flagged overage.` : "."),
      );
      onClose(true);
    });
  }

  if (confirming && preview.ok) {
    return (
      <ConfirmStep
        title={`Confirm settlement of hold ${hold.holdId}`}
        confirmLabel="Confirm settle"
        pending={pending}
        result={result}
        onConfirm={confirm}
        onBack={() => (back() ? onClose() : setConfirming(false))}
      >
        <SettleSummary held={hold.amountMicros} currency={hold.currency} preview={preview} />
        <OpenCaseWarning hold={hold} decision="settle" />
      </ConfirmStep>
    );
  }

  return (
    <form ref={formRef} onSubmit={review} noValidate className="grid gap-3" aria-label={`Settle hold ${hold.holdId}`}>
      <TextField
        id={`${id}-charge`}
        path="chargeMicros"
        name="charge"
        label={`Charge in ${hold.currency}`}
        required
        inputMode="decimal"
        autoComplete="off"
        placeholder={examples.placeholder}
        className="max-w-md"
        value={charge}
        onChange={(e) => setCharge(e.target.value)}
        // A stale complaint gives way as soon as the charge reads as an amount.
        error={preview.ok ? undefined : errors.chargeMicros}
        hint={
          <span aria-live="polite" className="text-sm text-slate-900">
            {preview.ok ? (
              <SettleSummary held={hold.amountMicros} currency={hold.currency} preview={preview} />
            ) : (
              `Held: ${money(hold.amountMicros)}. Type the charge in ${hold.currency}, e.g. ${examples.example}.`
            )}
          </span>
        }
      />
      <DecisionFields
        value={text}
        errors={errors}
        onChange={setText}
        evidenceHint="Where the charge comes from: invoice line, usage export, provider dashboard."
      />
      <div className="flex gap-2">
        <Button type="submit">Review settlement</Button>
        <Button variant="secondary" onClick={() => onClose()}>
          Cancel
        </Button>
      </div>
    </form>
  );
}

function SettleSummary({
  held,
  currency,
  preview,
}: {
  held: number;
  currency: string;
  preview: Extract<ReturnType<typeof previewSettle>, { ok: true }>;
}) {
  return (
    <span data-testid="settle-preview">
      Charges <Money micros={preview.settledMicros} currency={currency} /> of the{" "}
      <Money micros={held} currency={currency} /> held; releases{" "}
      <Money micros={preview.releasedMicros} currency={currency} /> back to budget.
      {preview.overageMicros ? (
        <strong className="ml-1 text-amber-900">
          ⚑ The charge exceeds the hold: <Money micros={preview.overageMicros} currency={currency} /> is booked as a
          flagged overage.
        </strong>
      ) : null}
    </span>
  );
}
