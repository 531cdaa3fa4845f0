"use client";

import { ConfirmButton } from "@/components/ui/confirm-button";
import { FormError, useServerAction } from "@/components/ui/form";
import { deletePriceAction } from "@/lib/actions/admin-actions";

export function DeletePriceButton({ priceId, label }: { priceId: string; label: string }) {
  const { run, pending, result } = useServerAction(deletePriceAction);
  return (
    <div>
      <ConfirmButton
        label="Delete"
        confirmLabel={`Delete ${label}`}
        question="Cases for this model will show no duplicate cost."
        pending={pending}
        onConfirm={() => run({ priceId })}
      />
      <FormError result={result} listIssues />
    </div>
  );
}
