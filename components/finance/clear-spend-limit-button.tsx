"use client";

import { ConfirmButton } from "@/components/ui/confirm-button";
import { FormError, useServerAction } from "@/components/ui/form";
import { setSpendLimitAction } from "@/lib/actions/finance-actions";
import { limitScope } from "./spend-limit-form";

/** Clearing is setting both figures to nothing: the same action, so it is audited the same way. */
export function ClearSpendLimitButton({
  appliesTo,
  currency,
  producer,
  model,
}: {
  appliesTo: "replacements" | "sends";
  currency: string;
  producer: string | null;
  model: string | null;
}) {
  const { run, pending, result } = useServerAction(setSpendLimitAction);
  const scope = limitScope({ appliesTo, producer, model });
  return (
    <div>
      <ConfirmButton
        label="Clear"
        confirmLabel={`Clear the ${currency} limit for ${scope}`}
        question={
          appliesTo === "sends"
            ? "These sends are then limited by nothing but the producer's other limits."
            : "Replacements in this currency are then limited by nothing but finance's decisions."
        }
        pending={pending}
        onConfirm={() =>
          run({ appliesTo, currency, producer: producer ?? "", model: model ?? "", perHour: "", perDay: "" })
        }
      />
      <FormError result={result} listIssues />
    </div>
  );
}
