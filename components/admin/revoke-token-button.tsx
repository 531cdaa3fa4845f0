"use client";

import { ActionError } from "@/components/ui/action-error";
import { type ServerAction, useServerAction } from "@/components/ui/form";
import { ConfirmButton } from "./confirm-button";

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
      <ActionError result={result} />
    </div>
  );
}
