"use client";

import { type FormEvent, useEffect, useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { ConfirmStep } from "@/components/ui/confirm-step";
import { FormError, fieldError, TextAreaField, TextField, useServerAction } from "@/components/ui/form";
import { DECISION_LABEL, type DecisionChoice } from "@/components/ui/labels";
import type { CaseDetail } from "@/lib/services/case/get-case";
import {
  choiceLabel,
  consequenceOf,
  type DecisionInput,
  type HeldBackRepeat,
  submitDecision,
} from "./decision-options";

/**
 * One place to decide a case: the permitted choices as options (in the order the evidence supports),
 * one evidence field, and a confirmation that says what will happen and the money involved before
 * anything is sent. A refusal is shown at the field the server named; a decision that went through
 * locks the panel until the case shows it, so the same person cannot send it twice. A repeat that
 * cannot help (`repeat`) is offered only after "try again anyway", with the failure it would repeat.
 */
export function DecisionPanel({
  detail,
  choices: offered,
  repeat = null,
  disabled,
  onChanged,
}: {
  detail: CaseDetail;
  choices: DecisionChoice[];
  repeat?: HeldBackRepeat | null;
  disabled: boolean;
  onChanged: () => void;
}) {
  const [anyway, setAnyway] = useState(false);
  const choices = anyway && repeat ? [...offered, repeat.choice] : offered;
  const formRef = useRef<HTMLFormElement>(null);
  const doneRef = useRef<HTMLParagraphElement>(null);
  const sending = useRef(false);
  const [picked, setPicked] = useState<DecisionChoice | null>(null);
  const [evidence, setEvidence] = useState("");
  const [jobId, setJobId] = useState("");
  const [confirming, setConfirming] = useState(false);
  const [done, setDone] = useState<{ label: string; head: string } | null>(null);
  const { run, pending, result, reset } = useServerAction(
    (raw: unknown) => submitDecision(detail.id, raw as DecisionInput),
    formRef,
  );
  // The newest timeline event: every decision writes one, so a change means the case shows it.
  const head = detail.timeline[0]?.id ?? "";
  const locked = done !== null && done.head === head;
  const fieldIssue = result !== null && !result.ok && (result.error.issues?.length ?? 0) > 0;
  // A lone option is chosen already; a choice the case no longer offers (it moved on) is dropped.
  const choice =
    picked !== null && choices.includes(picked) ? picked : choices.length === 1 ? (choices[0] ?? null) : null;
  const showConfirm = confirming && choice !== null && !fieldIssue;

  useEffect(() => {
    if (done) doneRef.current?.focus();
  }, [done]);

  function review(event: FormEvent) {
    event.preventDefault();
    if (!choice) return;
    setDone(null);
    reset();
    setConfirming(true);
  }

  function confirm() {
    if (!choice || sending.current) return;
    sending.current = true;
    const chosen = choice;
    run({ choice: chosen, evidence, providerJobId: jobId.trim() } satisfies DecisionInput, () => {
      setDone({ label: choiceLabel(chosen, detail), head });
      setConfirming(false);
      setPicked(null);
      setEvidence("");
      setJobId("");
      onChanged();
    });
  }

  useEffect(() => {
    if (!pending) sending.current = false;
  }, [pending]);

  function back() {
    const failed = result !== null && !result.ok;
    reset();
    setConfirming(false);
    // A refusal such as a lost race means the case moved: show it as it is now.
    if (failed) onChanged();
    requestAnimationFrame(() => formRef.current?.querySelector<HTMLButtonElement>("button[type=submit]")?.focus());
  }

  const inert = disabled || locked || showConfirm;
  return (
    <div className="rounded border border-slate-300 bg-white p-3">
      <form ref={formRef} onSubmit={review} aria-label="Decide this case" className="space-y-3">
        <fieldset disabled={inert}>
          <legend className="text-sm font-semibold">Choose a decision</legend>
          <div className="mt-2 space-y-2">
            {choices.map((name) => (
              <div key={name} className="flex items-start gap-2">
                <input
                  type="radio"
                  id={`decision-${name}`}
                  name="decision"
                  value={name}
                  required
                  checked={choice === name}
                  onChange={() => setPicked(name)}
                  aria-describedby={`decision-${name}-explains`}
                  className="mt-1"
                />
                <div>
                  <label htmlFor={`decision-${name}`} className="text-sm font-medium">
                    {choiceLabel(name, detail)}
                  </label>
                  <p id={`decision-${name}-explains`} className="text-xs text-slate-700">
                    {DECISION_LABEL[name].explains}
                  </p>
                </div>
              </div>
            ))}
          </div>
          {choice === "reconcile_attach" ? (
            <TextField
              id="decision-job-id"
              path="input.providerJobId"
              label="Provider job ID"
              required
              value={jobId}
              onChange={(event) => setJobId(event.target.value)}
              error={fieldError(result, "input.providerJobId")}
              className="mt-3 font-mono"
            />
          ) : null}
          {repeat ? (
            <TryAgainAnyway
              repeat={repeat}
              shown={anyway}
              onShow={() => {
                setAnyway(true);
                setPicked(repeat.choice);
              }}
            />
          ) : null}
          <TextAreaField
            id="decision-evidence"
            path="input.evidence"
            label="Evidence"
            hint="What you saw and where: it is kept in the timeline."
            required
            rows={3}
            value={evidence}
            onChange={(event) => setEvidence(event.target.value)}
            error={fieldError(result, "input.evidence")}
            className="mt-3"
          />
          <Button type="submit" className="mt-3">
            Review decision…
          </Button>
        </fieldset>
        {fieldIssue ? <FormError result={result} /> : null}
      </form>
      {showConfirm ? (
        <div className="mt-3" data-testid="decision-confirm">
          <ConfirmStep
            title={`Confirm: ${choiceLabel(choice, detail)}`}
            confirmLabel={DECISION_LABEL[choice].confirm}
            danger={choice === "request_replacement"}
            pending={pending}
            result={result}
            onConfirm={confirm}
            onBack={back}
          >
            {consequenceOf(choice, detail, jobId.trim())}
          </ConfirmStep>
        </div>
      ) : null}
      {done ? (
        <p ref={doneRef} tabIndex={-1} role="status" className="mt-3 text-sm text-emerald-900">
          Recorded: {done.label}.{locked ? " Updating the case…" : ""}
        </p>
      ) : null}
    </div>
  );
}

/** The held-back repeat: why it cannot help, the failure it would repeat, and the way to it anyway. */
function TryAgainAnyway({ repeat, shown, onShow }: { repeat: HeldBackRepeat; shown: boolean; onShow: () => void }) {
  return (
    <div className="mt-3 rounded border border-slate-300 bg-slate-50 p-2 text-sm" data-testid="try-again-anyway">
      <p>
        {DECISION_LABEL[repeat.choice].label} is not offered first: {repeat.why}.
      </p>
      <blockquote className="mt-1 border-l-4 border-slate-400 pl-2 text-slate-800">{repeat.failure}.</blockquote>
      {shown ? null : (
        <Button variant="secondary" className="mt-2" onClick={onShow}>
          Try again anyway…
        </Button>
      )}
    </div>
  );
}
