"use client";

import { useId, useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { ConfirmStep } from "@/components/ui/confirm-step";
import { focusProblem, SelectField, TextAreaField, TextField } from "@/components/ui/form";
import { moveJobToSendAction } from "@/lib/actions/usage-actions";
import { useAnnounce } from "./announcer";
import { caseIdIn } from "./case-ref";
import { useDecision } from "./use-decision";

type Fields = { provider: string; providerJobId: string; caseRef: string; attemptId: string; evidence: string };
type Problems = Partial<Record<keyof Fields, string>>;

/**
 * A job a shop named as its own that another send made (decision 084): finance names the job and
 * the send that made it; the wrong send forgets it, the correction its line booked there is
 * reversed, and the line corrects the right send's hold. Reviewed in words before it is booked.
 */
export function MoveJobForm({ providers }: { providers: readonly string[] }) {
  const id = useId();
  const fieldsRef = useRef<HTMLDivElement>(null);
  const announce = useAnnounce();
  const move = useDecision(moveJobToSendAction);
  const empty: Fields = { provider: providers[0] ?? "", providerJobId: "", caseRef: "", attemptId: "", evidence: "" };
  const [fields, setFields] = useState<Fields>(empty);
  const [problems, setProblems] = useState<Problems>({});
  const [confirming, setConfirming] = useState(false);
  const caseId = caseIdIn(fields.caseRef);
  const attemptId = fields.attemptId.trim() || undefined;
  const job = fields.providerJobId.trim();
  const set = (name: keyof Fields) => (e: { target: { value: string } }) =>
    setFields({ ...fields, [name]: e.target.value });

  function review() {
    const found: Problems = {
      ...(job ? {} : { providerJobId: "Name the provider job." }),
      ...(caseId ? {} : { caseRef: "Paste the address or ID of the case of the send that made it." }),
      ...(fields.evidence.trim().length >= 5 ? {} : { evidence: "Say how you know (at least 5 characters)." }),
    };
    setProblems(found);
    const first = Object.keys(found)[0];
    if (first) focusProblem(fieldsRef.current, first);
    else setConfirming(true);
  }

  if (confirming && caseId) {
    const target = `case ${caseId}${attemptId ? `, send ${attemptId}` : ""}`;
    return (
      <ConfirmStep
        title={`Move ${fields.provider} job ${job} to ${target}`}
        confirmLabel="Move job"
        pending={move.pending}
        result={move.result}
        onConfirm={() =>
          move.decide(
            { provider: fields.provider, providerJobId: job, caseId, attemptId, evidence: fields.evidence },
            () => {
              announce(`${fields.provider} job ${job} is moved to ${target}.`);
              setFields(empty);
              setConfirming(false);
            },
          )
        }
        onBack={() => {
          move.back();
          setConfirming(false);
        }}
      >
        The send that records the job now forgets it (an open case goes back to an uncertain submission; a resolved one
        keeps its outcome), the correction its usage lines booked on that send's hold is reversed, and the lines then
        settle or correct the hold of the send you named; both timelines say so.
      </ConfirmStep>
    );
  }

  return (
    <div ref={fieldsRef} className="grid max-w-xl gap-2">
      <SelectField
        id={`${id}-provider`}
        path="provider"
        name="provider"
        label="Provider"
        value={fields.provider}
        onChange={set("provider")}
      >
        {providers.map((provider) => (
          <option key={provider} value={provider}>
            {provider}
          </option>
        ))}
      </SelectField>
      <TextField
        id={`${id}-job`}
        path="providerJobId"
        name="providerJobId"
        label="Provider job"
        maxLength={300}
        value={fields.providerJobId}
        error={problems.providerJobId}
        onChange={set("providerJobId")}
      />
      <TextField
        id={`${id}-case`}
        path="caseRef"
        name="caseRef"
        label="Case of the send that made it (address or ID)"
        value={fields.caseRef}
        error={problems.caseRef}
        onChange={set("caseRef")}
      />
      <TextField
        id={`${id}-attempt`}
        path="attemptId"
        name="attemptId"
        label="Send (attempt ID), if not the case's current one"
        maxLength={200}
        value={fields.attemptId}
        onChange={set("attemptId")}
      />
      <TextAreaField
        id={`${id}-evidence`}
        path="evidence"
        name="evidence"
        label="How you know"
        hint="For example: the shop's log, the request on the invoice line, the provider's support."
        rows={2}
        maxLength={4000}
        required
        value={fields.evidence}
        error={problems.evidence}
        onChange={set("evidence")}
      />
      <div>
        <Button variant="secondary" onClick={review}>
          Review…
        </Button>
      </div>
    </div>
  );
}
