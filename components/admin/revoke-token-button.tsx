"use client";

import { ConfirmButton } from "@/components/ui/confirm-button";
import { FormError, type ServerAction, useServerAction } from "@/components/ui/form";

export function RevokeTokenButton({
  tokenId,
  tokenName,
  action,
}: {
  tokenId: string;
  tokenName: string;
  action: ServerAction<unknown>;
}) {
  const { run, pending, result } = useServerAction(action);
  return (
    <div>
      <ConfirmButton
        label="Revoke"
        confirmLabel={`Revoke ${tokenName}`}
        question="Requests using it are refused from now on. This cannot be undone."
        pending={pending}
        onConfirm={() => run({ tokenId })}
      />
      <FormError result={result} listIssues />
    </div>
  );
}
