"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { Button } from "@/components/ui/button";
import { ConfirmStep } from "@/components/ui/confirm-step";
import { Money } from "@/components/ui/money";
import { authorizeReplacementAction, declineReplacementAction } from "@/lib/actions/finance-actions";
import type { ActionResult } from "@/lib/actions/safe-action";
import { formatMicros } from "@/lib/domain/money";
import type { ReplacementRequestItem } from "@/lib/services/replacement/list-replacement-requests";
import { useAnnounce } from "./announcer";
import { checkDecisionText, type DecisionErrors, DecisionFields } from "./decision-fields";

type Choice = "authorize" | "decline";

/** Authorise (a fresh hold and a new paid attempt) or decline, with evidence, after a confirmation. */
export function ReplacementDecision({ request }: { request: ReplacementRequestItem }) {
  const announce = useAnnounce();
  const router = useRouter();
  const [text, setText] = useState({ note: "", evidence: "" });
  const [errors, setErrors] = useState<DecisionErrors>({});
  const [choice, setChoice] = useState<Choice | null>(null);
  const [result, setResult] = useState<ActionResult<unknown> | null>(null);
  const [pending, startTransition] = useTransition();
  const cost = formatMicros(request.amountMicros, request.currency);

  function choose(next: Choice) {
    const found = checkDecisionText(text, false);
    setErrors(found);
    if (Object.keys(found).length === 0) setChoice(next);
  }

  function confirm() {
    const action = choice === "authorize" ? authorizeReplacementAction : declineReplacementAction;
    startTransition(async () => {
      const outcome = await action({ requestId: request.id, evidence: text.evidence });
      setResult(outcome);
      if (outcome.ok) {
        announce(
          choice === "authorize"
            ? `Replacement for ${request.operationId} authorised: a new hold of ${cost} is reserved.`
            : `Replacement for ${request.operationId} declined.`,
        );
      }
    });
  }

  if (choice) {
    const failed = result !== null && !result.ok;
    return (
      <div className="mt-3">
        <ConfirmStep
          title={choice === "authorize" ? "Confirm authorisation" : "Confirm decline"}
          confirmLabel={choice === "authorize" ? "Authorise replacement" : "Decline replacement"}
          danger={choice === "decline"}
          pending={pending}
          result={result}
          onConfirm={confirm}
          onBack={() => {
            if (failed) router.refresh();
            setResult(null);
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
    <div className="mt-3 grid gap-3">
      <DecisionFields
        value={text}
        errors={errors}
        onChange={setText}
        showNote={false}
        evidenceHint="Why: budget approval, ticket, or the reason for declining."
      />
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
