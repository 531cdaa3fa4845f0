"use client";

import { useId, useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { ConfirmStep } from "@/components/ui/confirm-step";
import { focusProblem, TextAreaField, TextField } from "@/components/ui/form";
import { attachUnexplainedChargeAction, markChargeKnownOutsideAction } from "@/lib/actions/usage-actions";
import type { UnexplainedCharge } from "@/lib/services/usage/list-unexplained-charges";
import { useAnnounce } from "./announcer";
import { caseIdIn, casePlaceWords } from "./case-ref";
import { useDecision } from "./use-decision";

type Mode = "attach" | "outside";
type Candidate = UnexplainedCharge["candidates"][number];
/** The send finance names: one the list offered, or a case (its address or ID) and attempt typed in. */
type Target = { caseId: string; attemptId: string | undefined; label: string; offered: Candidate | undefined };

const OTHER = "other";
const keyOf = (c: Candidate) => `${c.caseId}/${c.attemptId}`;

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
  const [chosenKey, setChosenKey] = useState(charge.candidates[0] ? keyOf(charge.candidates[0]) : OTHER);
  const [other, setOther] = useState({ caseRef: "", attemptId: "" });
  const [caseError, setCaseError] = useState<string | undefined>();
  const [text, setText] = useState("");
  const [error, setError] = useState<string | undefined>();
  const [confirming, setConfirming] = useState(false);
  const name = charge.providerJobId ? `job ${charge.providerJobId}` : "this line";
  const offered = charge.candidates.find((c) => keyOf(c) === chosenKey);
  const typedCase = caseIdIn(other.caseRef);
  const chosen: Target | undefined = offered
    ? { caseId: offered.caseId, attemptId: offered.attemptId, label: `operation ${offered.operationId}`, offered }
    : typedCase
      ? {
          caseId: typedCase,
          attemptId: other.attemptId.trim() || undefined,
          label: `case ${typedCase}${other.attemptId.trim() ? `, send ${other.attemptId.trim()}` : ""}`,
          offered: undefined,
        }
      : undefined;

  function review() {
    const noCase = mode === "attach" && !chosen ? "Paste the case's address or ID." : undefined;
    const problem =
      mode === "outside" && text.trim().length < 5
        ? "Say why it was made outside the product (at least 5 characters)."
        : mode === "attach" && !text.trim()
          ? "Evidence is required."
          : undefined;
    setCaseError(noCase);
    setError(problem);
    if (noCase) focusProblem(fieldsRef.current, "caseRef");
    else if (problem) focusProblem(fieldsRef.current, mode === "outside" ? "reason" : "evidence");
    else setConfirming(true);
  }

  if (confirming && mode === "attach" && chosen && charge.providerJobId) {
    const providerJobId = charge.providerJobId;
    return (
      <ConfirmStep
        title={`Attach ${name} to ${chosen.label}`}
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
            () => announce(`${charge.provider} ${name} is attached to ${chosen.label}.`),
          )
        }
        onBack={() => {
          attach.back();
          setConfirming(false);
        }}
      >
        {consequence(chosen.offered)}
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
        {charge.providerJobId ? (
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
              {c.uncertain ? "" : `; send ${c.attemptId}, case ${casePlaceWords(c)}`})
            </label>
          ))}
          <label className="mt-1 flex items-center gap-2 text-sm">
            <input
              type="radio"
              name={`${id}-case`}
              value={OTHER}
              checked={chosenKey === OTHER}
              onChange={() => setChosenKey(OTHER)}
            />
            Another case
          </label>
          {chosenKey === OTHER ? (
            <div className="mt-2 grid gap-2">
              <TextField
                id={`${id}-case-ref`}
                path="caseRef"
                name="caseRef"
                label="Case address or ID"
                hint="Open the operation's case and paste its address."
                value={other.caseRef}
                error={caseError}
                onChange={(e) => setOther({ ...other, caseRef: e.target.value })}
              />
              <TextField
                id={`${id}-attempt`}
                path="attemptId"
                name="attemptId"
                label="Send (attempt ID), if not the case's current one"
                value={other.attemptId}
                maxLength={200}
                onChange={(e) => setOther({ ...other, attemptId: e.target.value })}
              />
            </div>
          ) : null}
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

/** What attaching does, said before finance confirms it. */
function consequence(offered: Candidate | undefined): string {
  const lines = "the job's usage lines correct that send's hold to the provider's charge";
  if (!offered)
    return `The job is recorded on the send you named, through the ownership rule: the case's uncertain submission goes on to status checks, any other send's case stays where it is, and ${lines}.`;
  if (offered.uncertain)
    return `The case of ${offered.operationId} (${offered.producer}) goes on to status checks of this job, and the job's usage lines settle its hold at the provider's charge.`;
  return `The job is recorded on send ${offered.attemptId} of ${offered.operationId} (${offered.producer}), whose case stays ${casePlaceWords(offered)}; ${lines}, and a hold already released is charged after its release and flagged for finance.`;
}
