"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { Button } from "@/components/ui/button";
import { ConfirmStep } from "@/components/ui/confirm-step";
import { Money } from "@/components/ui/money";
import { releaseHoldAction } from "@/lib/actions/finance-actions";
import type { ActionResult } from "@/lib/actions/safe-action";
import { formatMicros } from "@/lib/domain/money";
import { useAnnounce } from "./announcer";
import { checkDecisionText, type DecisionErrors, DecisionFields } from "./decision-fields";

type Hold = { id: string; holdId: string; amountMicros: number; currency: string; exposure: boolean };

/** Release the whole hold: only with evidence that nothing was charged (rule 6). */
export function ReleaseForm({ hold, onClose }: { hold: Hold; onClose: (done?: boolean) => void }) {
  const announce = useAnnounce();
  const [text, setText] = useState({ note: "", evidence: "" });
  const [errors, setErrors] = useState<DecisionErrors>({});
  const [confirming, setConfirming] = useState(false);
  const [result, setResult] = useState<ActionResult<unknown> | null>(null);
  const [pending, startTransition] = useTransition();
  const router = useRouter();
  // After a refusal (e.g. someone else resolved the hold first), re-read the page on the way out.
  const closeAfterFailure = () => {
    router.refresh();
    onClose();
  };

  function review(event: React.FormEvent) {
    event.preventDefault();
    const found = checkDecisionText(text);
    setErrors(found);
    if (Object.keys(found).length === 0) setConfirming(true);
  }

  function confirm() {
    startTransition(async () => {
      const outcome = await releaseHoldAction({ holdRef: hold.id, ...text });
      setResult(outcome);
      if (outcome.ok) {
        announce(`Hold ${hold.holdId} released: ${formatMicros(hold.amountMicros, hold.currency)} back to budget.`);
        onClose(true);
      }
    });
  }

  if (confirming) {
    return (
      <ConfirmStep
        title={`Confirm release of hold ${hold.holdId}`}
        confirmLabel="Confirm release"
        danger
        pending={pending}
        result={result}
        onConfirm={confirm}
        onBack={() => (result && !result.ok ? closeAfterFailure() : setConfirming(false))}
      >
        Releases the whole <Money micros={hold.amountMicros} currency={hold.currency} /> back to budget and records that
        nothing was charged.
        {hold.exposure ? (
          <strong className="mt-1 block text-amber-900">
            ⚠ This submission is still uncertain: release only if the provider&apos;s records prove no job ran.
          </strong>
        ) : null}
      </ConfirmStep>
    );
  }

  return (
    <form onSubmit={review} noValidate className="grid gap-3" aria-label={`Release hold ${hold.holdId}`}>
      <p className="text-sm">
        Release all <Money micros={hold.amountMicros} currency={hold.currency} /> held: nothing was charged.
      </p>
      <DecisionFields
        value={text}
        errors={errors}
        onChange={setText}
        evidenceHint="Evidence of no charge: usage export with 0 s, invoice without the job, provider support reply."
      />
      <div className="flex gap-2">
        <Button type="submit">Review release</Button>
        <Button variant="secondary" onClick={() => onClose()}>
          Cancel
        </Button>
      </div>
    </form>
  );
}
