"use client";

import { useRouter } from "next/navigation";
import { useId, useState, useTransition } from "react";
import { Button } from "@/components/ui/button";
import { ConfirmStep } from "@/components/ui/confirm-step";
import { Money } from "@/components/ui/money";
import { settleHoldAction } from "@/lib/actions/finance-actions";
import type { ActionResult } from "@/lib/actions/safe-action";
import { formatMicros } from "@/lib/domain/money";
import { useAnnounce } from "./announcer";
import { checkDecisionText, type DecisionErrors, DecisionFields } from "./decision-fields";
import { chargeExamples, previewSettle } from "./settle-preview";

type Hold = { id: string; holdId: string; amountMicros: number; currency: string };

/** Settle a hold fully or partly: the charge as typed, previewed as settle / release / overage. */
export function SettleForm({ hold, onClose }: { hold: Hold; onClose: (done?: boolean) => void }) {
  const id = useId();
  const announce = useAnnounce();
  const [charge, setCharge] = useState("");
  const [text, setText] = useState({ note: "", evidence: "" });
  const [errors, setErrors] = useState<DecisionErrors & { charge?: string }>({});
  const [confirming, setConfirming] = useState(false);
  const [result, setResult] = useState<ActionResult<unknown> | null>(null);
  const [pending, startTransition] = useTransition();
  const router = useRouter();
  // After a refusal (e.g. someone else resolved the hold first), re-read the page on the way out.
  const closeAfterFailure = () => {
    router.refresh();
    onClose();
  };
  const preview = previewSettle(hold.amountMicros, hold.currency, charge);
  const examples = chargeExamples(hold.currency);
  const money = (micros: number) => formatMicros(micros, hold.currency);

  function review(event: React.FormEvent) {
    event.preventDefault();
    const found = { ...checkDecisionText(text), ...(preview.ok ? {} : { charge: preview.message }) };
    setErrors(found);
    if (Object.keys(found).length === 0) setConfirming(true);
  }

  function confirm() {
    if (!preview.ok) return;
    startTransition(async () => {
      const outcome = await settleHoldAction({ holdRef: hold.id, chargeMicros: preview.chargeMicros, ...text });
      setResult(outcome);
      if (outcome.ok) {
        announce(
          `Hold ${hold.holdId} settled: ${money(preview.settledMicros)} charged, ${money(preview.releasedMicros)} released` +
            (preview.overageMicros ? `, ${money(preview.overageMicros)} booked as flagged overage.` : "."),
        );
        onClose(true);
      }
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
        onBack={() => (result && !result.ok ? closeAfterFailure() : setConfirming(false))}
      >
        <SettleSummary held={hold.amountMicros} currency={hold.currency} preview={preview} />
      </ConfirmStep>
    );
  }

  return (
    <form onSubmit={review} noValidate className="grid gap-3" aria-label={`Settle hold ${hold.holdId}`}>
      <div className="max-w-md">
        <label htmlFor={`${id}-charge`} className="text-sm font-medium">
          Charge in {hold.currency} <span className="font-normal text-slate-600">(required)</span>
        </label>
        <input
          id={`${id}-charge`}
          name="charge"
          inputMode="decimal"
          autoComplete="off"
          placeholder={examples.placeholder}
          className="mt-1 block w-40 rounded border border-slate-400 px-2 py-1 text-sm tabular-nums"
          value={charge}
          aria-invalid={errors.charge ? true : undefined}
          aria-describedby={`${id}-preview`}
          onChange={(e) => setCharge(e.target.value)}
        />
        <p id={`${id}-preview`} aria-live="polite" className="mt-1 text-sm">
          {preview.ok ? (
            <SettleSummary held={hold.amountMicros} currency={hold.currency} preview={preview} />
          ) : (
            <span className={errors.charge ? "text-red-800" : "text-slate-600"}>
              {errors.charge ??
                `Held: ${money(hold.amountMicros)}. Type the charge in ${hold.currency}, e.g. ${examples.example}.`}
            </span>
          )}
        </p>
      </div>
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
