"use client";

import { ConfirmButton } from "@/components/ui/confirm-button";
import { FormError, useServerAction } from "@/components/ui/form";
import { setSpendLimitAction } from "@/lib/actions/finance-actions";

/** Clearing is setting both figures to nothing: the same action, so it is audited the same way. */
export function ClearSpendLimitButton({ currency, producer }: { currency: string; producer: string | null }) {
  const { run, pending, result } = useServerAction(setSpendLimitAction);
  const scope = producer ?? "every producer";
  return (
    <div>
      <ConfirmButton
        label="Clear"
        confirmLabel={`Clear the ${currency} limit for ${scope}`}
        question="Replacements in this currency are then limited by nothing but finance's decisions."
        pending={pending}
        onConfirm={() => run({ currency, producer: producer ?? "", perHour: "", perDay: "" })}
      />
      <FormError result={result} listIssues />
    </div>
  );
}
