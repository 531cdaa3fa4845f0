"use client";

import { ActionError } from "@/components/ui/action-error";
import { useServerAction } from "@/components/ui/form";
import { deletePriceAction } from "@/lib/actions/admin-actions";
import { ConfirmButton } from "./confirm-button";

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
      <ActionError result={result} />
    </div>
  );
}
