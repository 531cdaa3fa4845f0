"use client";

import { useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { ConfirmStep } from "@/components/ui/confirm-step";
import { focusProblem } from "@/components/ui/form";
import { Money } from "@/components/ui/money";
import { releaseHoldAction, writeOffHoldAction } from "@/lib/actions/finance-actions";
import { formatMicros } from "@/lib/domain/money";
import { useAnnounce } from "./announcer";
import { checkDecisionText, type DecisionErrors, DecisionFields } from "./decision-fields";
import { OpenCaseWarning } from "./open-case-warning";
import type { DecidedHold } from "./settle-form";
import { useDecision } from "./use-decision";

type Hold = DecidedHold & { exposure: boolean; outcomeUnknown: string | null };

/**
 * Release the whole hold: only with evidence that nothing was charged (rule 6). While the provider
 * may still complete the send it is a write-off with a reason instead (DESIGN rule 18).
 */
export function ReleaseForm({ hold, onClose }: { hold: Hold; onClose: (done?: boolean) => void }) {
  const formRef = useRef<HTMLFormElement>(null);
  const announce = useAnnounce();
  const writeOff = hold.outcomeUnknown !== null;
  const verb = writeOff ? "write-off" : "release";
  const { decide, back, pending, result } = useDecision(writeOff ? writeOffHoldAction : releaseHoldAction);
  const [text, setText] = useState({ note: "", evidence: "" });
  const [errors, setErrors] = useState<DecisionErrors>({});
  const [confirming, setConfirming] = useState(false);

  function review(event: React.FormEvent) {
    event.preventDefault();
    const found = checkDecisionText(text);
    setErrors(found);
    const first = Object.keys(found)[0];
    if (first) focusProblem(formRef.current, first);
    else setConfirming(true);
  }

  function confirm() {
    decide({ holdRef: hold.id, ...text }, () => {
      announce(
        `${hold.operationId} (hold ${hold.holdId}) ${writeOff ? "written off" : "released"}: ${formatMicros(hold.amountMicros, hold.currency)} back to budget.`,
      );
      onClose(true);
    });
  }

  if (confirming) {
    return (
      <ConfirmStep
        title={`Confirm ${verb} of hold ${hold.holdId}`}
        confirmLabel={`Confirm ${verb}`}
        danger
        pending={pending}
        result={result}
        onConfirm={confirm}
        onBack={() => (back() ? onClose() : setConfirming(false))}
      >
        Releases the whole <Money micros={hold.amountMicros} currency={hold.currency} /> back to budget and records{" "}
        {writeOff ? "that you wrote it off, with your reason." : "that nothing was charged."}
        {writeOff ? (
          <strong className="mt-1 block text-red-900">
            ⚠ The provider may still complete this job ({hold.outcomeUnknown}); if it does, its charge is booked and
            flagged as charged after release.
          </strong>
        ) : null}
        {hold.exposure && !writeOff ? (
          <strong className="mt-1 block text-amber-900">
            ⚠ This submission is still uncertain: release only if the provider&apos;s records prove no job ran.
          </strong>
        ) : null}
        {writeOff ? null : <OpenCaseWarning hold={hold} decision="release" />}
      </ConfirmStep>
    );
  }

  return (
    <form
      ref={formRef}
      onSubmit={review}
      noValidate
      className="grid gap-3"
      aria-label={`${writeOff ? "Write off" : "Release"} hold ${hold.holdId}`}
    >
      <p className="text-sm">
        {writeOff ? "Write off" : "Release"} all <Money micros={hold.amountMicros} currency={hold.currency} /> held:{" "}
        {writeOff ? `its outcome is unknown (${hold.outcomeUnknown}), so it is not released.` : "nothing was charged."}
      </p>
      <DecisionFields
        value={text}
        errors={errors}
        onChange={setText}
        noteLabel={writeOff ? "Reason for writing it off" : undefined}
        evidenceHint={
          writeOff
            ? "What you relied on: the producer's or provider's word, a ticket, a usage export so far."
            : "Evidence of no charge: usage export with 0 s, invoice without the job, provider support reply."
        }
      />
      <div className="flex gap-2">
        <Button type="submit">{writeOff ? "Review write-off" : "Review release"}</Button>
        <Button variant="secondary" onClick={() => onClose()}>
          Cancel
        </Button>
      </div>
    </form>
  );
}
