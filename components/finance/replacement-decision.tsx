"use client";

import { useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { ConfirmStep } from "@/components/ui/confirm-step";
import { focusProblem } from "@/components/ui/form";
import { Money } from "@/components/ui/money";
import { authorizeReplacementAction, declineReplacementAction } from "@/lib/actions/finance-actions";
import { formatMicros } from "@/lib/domain/money";
import type { ReplacementRequestItem } from "@/lib/services/replacement/list-replacement-requests";
import { useAnnounce } from "./announcer";
import { checkDecisionText, type DecisionErrors, DecisionFields } from "./decision-fields";
import { useDecision } from "./use-decision";

type Choice = "authorize" | "decline";

/** Authorise (a fresh hold and a new paid attempt) or decline, with evidence, after a confirmation. */
export function ReplacementDecision({ request }: { request: ReplacementRequestItem }) {
  const fieldsRef = useRef<HTMLDivElement>(null);
  const announce = useAnnounce();
  const authorize = useDecision(authorizeReplacementAction);
  const decline = useDecision(declineReplacementAction);
  const [text, setText] = useState({ note: "", evidence: "" });
  const [errors, setErrors] = useState<DecisionErrors>({});
  const [choice, setChoice] = useState<Choice | null>(null);
  const cost = formatMicros(request.amountMicros, request.currency);
  const decision = choice === "decline" ? decline : authorize;

  function choose(next: Choice) {
    const found = checkDecisionText(text, false);
    setErrors(found);
    const first = Object.keys(found)[0];
    if (first) focusProblem(fieldsRef.current, first);
    else setChoice(next);
  }

  function confirm() {
    decision.decide({ requestId: request.id, evidence: text.evidence }, () =>
      announce(
        choice === "authorize"
          ? `Replacement for ${request.operationId} authorised: a new hold of ${cost} is reserved.`
          : `Replacement for ${request.operationId} declined: no new hold of ${cost} is reserved.`,
      ),
    );
  }

  if (choice) {
    return (
      <div className="mt-3">
        <ConfirmStep
          title={choice === "authorize" ? "Confirm authorisation" : "Confirm decline"}
          confirmLabel={choice === "authorize" ? "Authorise replacement" : "Decline replacement"}
          danger={choice === "decline"}
          pending={decision.pending}
          result={decision.result}
          onConfirm={confirm}
          onBack={() => {
            decision.back();
            setChoice(null);
          }}
        >
          {choice === "authorize" ? (
            <>
              Reserves a new hold of <Money micros={request.amountMicros} currency={request.currency} /> and lets the
              producer submit one new paid generation for {request.operationId}.
            </>
          ) : (
            <>No replacement is generated; the request is closed.</>
          )}
        </ConfirmStep>
      </div>
    );
  }

  return (
    <div ref={fieldsRef} className="mt-3 grid gap-3">
      <DecisionFields
        value={text}
        errors={errors}
        onChange={setText}
        showNote={false}
        evidenceHint="Why: budget approval, ticket, or the reason for declining."
      />
      {request.spendLimitWarning ? (
        <p
          className="rounded border border-amber-500 bg-amber-50 p-2 text-sm text-amber-950"
          data-testid="spend-limit-warning"
        >
          Authorising now would be refused: {request.spendLimitWarning} Raise the limit or wait for the window to pass.
        </p>
      ) : null}
      <div className="flex flex-wrap items-center gap-2">
        <Button onClick={() => choose("authorize")} disabled={request.expired}>
          Authorise…
        </Button>
        <Button variant="secondary" onClick={() => choose("decline")}>
          Decline…
        </Button>
        {request.expired ? (
          <span className="text-sm text-slate-700">
            Expired requests cannot be authorised; the reviewer may ask again.
          </span>
        ) : null}
      </div>
    </div>
  );
}
