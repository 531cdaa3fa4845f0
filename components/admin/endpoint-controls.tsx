"use client";

import { useState } from "react";
import { Button } from "@/components/ui/button";
import { ConfirmButton } from "@/components/ui/confirm-button";
import { FormError, useServerAction } from "@/components/ui/form";
import { SecretReveal } from "@/components/ui/secret-reveal";
import { rotateEndpointSecretAction, setEndpointDisabledAction } from "@/lib/actions/admin-actions";

export function EndpointControls({ endpoint }: { endpoint: { id: string; producer: string; disabled: boolean } }) {
  const rotate = useServerAction(rotateEndpointSecretAction);
  const toggle = useServerAction(setEndpointDisabledAction);
  const [secret, setSecret] = useState<string | null>(null);

  return (
    <div className="flex flex-col items-start gap-2">
      <div className="flex flex-wrap gap-2">
        <ConfirmButton
          label="Rotate secret"
          confirmLabel="Issue a new secret"
          question="The old secret stops signing at once; the producer must switch to the new one."
          variant="secondary"
          pending={rotate.pending}
          onConfirm={() => rotate.run({ endpointId: endpoint.id }, (data) => setSecret(data.signingSecret))}
        />
        {endpoint.disabled ? (
          <Button
            variant="secondary"
            className="px-3 py-1"
            disabled={toggle.pending}
            onClick={() => toggle.run({ endpointId: endpoint.id, disabled: false })}
          >
            Enable
          </Button>
        ) : (
          <ConfirmButton
            label="Disable"
            confirmLabel={`Disable ${endpoint.producer}'s endpoint`}
            question="Nothing is sent to it until it is enabled again."
            pending={toggle.pending}
            onConfirm={() => toggle.run({ endpointId: endpoint.id, disabled: true })}
          />
        )}
      </div>
      <FormError result={rotate.result} listIssues />
      <FormError result={toggle.result} listIssues />
      {secret ? (
        <SecretReveal
          title={`New signing secret for ${endpoint.producer}`}
          secret={secret}
          onDismiss={() => setSecret(null)}
        />
      ) : null}
    </div>
  );
}
