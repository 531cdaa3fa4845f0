"use client";

import { useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { ConfirmStep } from "@/components/ui/confirm-step";
import { focusProblem } from "@/components/ui/form";
import { acknowledgeLateChargeAction } from "@/lib/actions/finance-actions";
import { formatMicros } from "@/lib/domain/money";
import type { LateChargeItem } from "@/lib/services/hold/list-late-charges";
import { useAnnounce } from "./announcer";
import { checkDecisionText, type DecisionErrors, DecisionFields } from "./decision-fields";
import { useDecision } from "./use-decision";

/** DESIGN rule 18: finance says what it did about a charge after release; the charge itself stays booked. */
export function LateChargeDecision({ item }: { item: LateChargeItem }) {
  const fieldsRef = useRef<HTMLDivElement>(null);
  const announce = useAnnounce();
  const decision = useDecision(acknowledgeLateChargeAction);
  const [text, setText] = useState({ note: "", evidence: "" });
  const [errors, setErrors] = useState<DecisionErrors>({});
  const [confirming, setConfirming] = useState(false);

  function review() {
    const found = checkDecisionText(text, false);
    setErrors(found);
    const first = Object.keys(found)[0];
    if (first) focusProblem(fieldsRef.current, first);
    else setConfirming(true);
  }

  if (confirming) {
    return (
      <ConfirmStep
        title={`Confirm the decision on hold ${item.holdId}`}
        confirmLabel="Record decision"
        pending={decision.pending}
        result={decision.result}
        onConfirm={() =>
          decision.decide({ holdRef: item.id, note: text.evidence }, () =>
            announce(
              `The charge after release of ${formatMicros(item.chargedMicros, item.currency)} on ${item.operationId} (hold ${item.holdId}) is decided; it stays booked.`,
            ),
          )
        }
        onBack={() => {
          decision.back();
          setConfirming(false);
        }}
      >
        The flagged charge stays in the ledger; it leaves this list.
      </ConfirmStep>
    );
  }

  return (
    <div ref={fieldsRef} className="grid gap-2">
      <DecisionFields
        value={text}
        errors={errors}
        onChange={setText}
        showNote={false}
        evidenceHint="What finance did: recovered from the customer, booked as a cost, disputed with the provider."
      />
      <div>
        <Button variant="secondary" onClick={review}>
          Decide…
        </Button>
      </div>
    </div>
  );
}
