"use client";

import { useId, useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { ConfirmStep } from "@/components/ui/confirm-step";
import { focusProblem, TextAreaField } from "@/components/ui/form";
import { attachUnexplainedChargeAction, markChargeKnownOutsideAction } from "@/lib/actions/usage-actions";
import type { UnexplainedCharge } from "@/lib/services/usage/list-unexplained-charges";
import { useAnnounce } from "./announcer";
import { useDecision } from "./use-decision";

type Mode = "attach" | "outside";

/** Where a candidate's case is, in words: "resolved as a failed generation", "parked at a delivery". */
function placeWords(c: UnexplainedCharge["candidates"][number]): string {
  const stage = c.stage.replaceAll("_", " ");
  return c.state === "resolved" ? `resolved at ${stage}` : `${c.state.replaceAll("_", " ")} at ${stage}`;
}

/**
 * The two ways a charge no operation explains leaves the list (decision 074): attach its job to the
 * send that made it (an uncertain submission's reconcile decision, or an earlier send of an
 * operation whose case went on without it, decision 080; both through the ownership rule), or say
 * it was made outside the product, with the reason, which books it in the ledger as such.
 */
export function ChargeActions({ charge }: { charge: UnexplainedCharge }) {
  const id = useId();
  const fieldsRef = useRef<HTMLDivElement>(null);
  const announce = useAnnounce();
  const attach = useDecision(attachUnexplainedChargeAction);
  const outside = useDecision(markChargeKnownOutsideAction);
  const [mode, setMode] = useState<Mode | null>(null);
  const keyOf = (c: UnexplainedCharge["candidates"][number]) => `${c.caseId}/${c.attemptId}`;
  const [chosenKey, setChosenKey] = useState(charge.candidates[0] ? keyOf(charge.candidates[0]) : "");
  const [text, setText] = useState("");
  const [error, setError] = useState<string | undefined>();
  const [confirming, setConfirming] = useState(false);
  const name = charge.providerJobId ? `job ${charge.providerJobId}` : "this line";
  const chosen = charge.candidates.find((c) => keyOf(c) === chosenKey);

  function review() {
    const problem =
      mode === "outside" && text.trim().length < 5
        ? "Say why it was made outside the product (at least 5 characters)."
        : mode === "attach" && !text.trim()
          ? "Evidence is required."
          : undefined;
    setError(problem);
    if (problem) focusProblem(fieldsRef.current, mode === "outside" ? "reason" : "evidence");
    else setConfirming(true);
  }

  if (confirming && mode === "attach" && chosen && charge.providerJobId) {
    const providerJobId = charge.providerJobId;
    return (
      <ConfirmStep
        title={`Attach ${name} to operation ${chosen.operationId}`}
        confirmLabel="Attach job"
        pending={attach.pending}
        result={attach.result}
        onConfirm={() =>
          attach.decide(
            {
              provider: charge.provider,
              providerJobId,
              caseId: chosen.caseId,
              attemptId: chosen.attemptId,
              evidence: text,
            },
            () => announce(`${charge.provider} ${name} is attached to operation ${chosen.operationId}.`),
          )
        }
        onBack={() => {
          attach.back();
          setConfirming(false);
        }}
      >
        {chosen.uncertain
          ? `The case of ${chosen.operationId} (${chosen.producer}) goes on to status checks of this job, and the job's usage lines settle its hold at the provider's charge.`
          : `The job is recorded on send ${chosen.attemptId} of ${chosen.operationId} (${chosen.producer}), whose case stays ${placeWords(chosen)}; the job's usage lines correct that send's hold to the provider's charge, and a hold already released is charged after its release and flagged for finance.`}
      </ConfirmStep>
    );
  }

  if (confirming && mode === "outside") {
    const key = charge.providerJobId ? { providerJobId: charge.providerJobId } : { usageLineId: charge.usageLineId };
    return (
      <ConfirmStep
        title={`Explain ${name} as made outside the product`}
        confirmLabel="Book as outside charge"
        pending={outside.pending}
        result={outside.result}
        onConfirm={() =>
          outside.decide({ provider: charge.provider, ...key, reason: text }, () =>
            announce(`${charge.provider} ${name} is explained as made outside the product and booked in the ledger.`),
          )
        }
        onBack={() => {
          outside.back();
          setConfirming(false);
        }}
      >
        Its charge is booked in the ledger as made outside the product, with your reason, and leaves this list.
      </ConfirmStep>
    );
  }

  if (mode === null) {
    return (
      <div className="flex flex-wrap gap-2">
        {charge.candidates.length > 0 && charge.providerJobId ? (
          <Button variant="secondary" onClick={() => setMode("attach")}>
            Attach to an operation…
          </Button>
        ) : null}
        <Button variant="secondary" onClick={() => setMode("outside")}>
          Made outside the product…
        </Button>
      </div>
    );
  }

  return (
    <div ref={fieldsRef} className="grid gap-2">
      {mode === "attach" ? (
        <fieldset>
          <legend className="text-sm font-medium">Operation that sent this job</legend>
          {charge.candidates.map((c) => (
            <label key={keyOf(c)} className="mt-1 flex items-center gap-2 text-sm">
              <input
                type="radio"
                name={`${id}-case`}
                value={keyOf(c)}
                checked={chosenKey === keyOf(c)}
                onChange={() => setChosenKey(keyOf(c))}
              />
              {c.operationId} ({c.producer}, {c.confidence}% match
              {c.uncertain ? "" : `; send ${c.attemptId}, case ${placeWords(c)}`})
            </label>
          ))}
        </fieldset>
      ) : null}
      <TextAreaField
        id={`${id}-text`}
        path={mode === "outside" ? "reason" : "evidence"}
        name={mode === "outside" ? "reason" : "evidence"}
        label={mode === "outside" ? "Why it was made outside the product" : "Evidence"}
        hint={
          mode === "outside"
            ? "For example: a duplicate our client's retry paid for, a test from a script."
            : "What shows this operation sent the job: the provider's request, its time, the client's log."
        }
        rows={2}
        maxLength={4000}
        required
        value={text}
        error={error}
        onChange={(e) => setText(e.target.value)}
      />
      <div className="flex gap-2">
        <Button variant="secondary" onClick={review}>
          Review…
        </Button>
        <Button
          variant="secondary"
          onClick={() => {
            setMode(null);
            setError(undefined);
          }}
        >
          Cancel
        </Button>
      </div>
    </div>
  );
}
