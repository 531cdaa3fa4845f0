"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { Button } from "@/components/ui/button";
import { FormError } from "@/components/ui/form-error";
import { requeueNotificationAction } from "@/lib/actions/notification-actions";
import type { ActionResult } from "@/lib/actions/safe-action";

/**
 * Puts one notification back in the worker's queue; the server bounds and audits it (decision 066).
 * Rendered for every notification, offering the button only while `requeueable`: the refresh after a
 * requeue makes it waiting again, and the confirmation must outlive the button it answers.
 */
export function NotificationRequeueButton({
  caseId,
  webhookId,
  label,
  requeueable,
}: {
  caseId: string;
  webhookId: string;
  label: string;
  requeueable: boolean;
}) {
  const router = useRouter();
  const [result, setResult] = useState<ActionResult<unknown> | null>(null);
  const [pending, startTransition] = useTransition();
  if (!requeueable && !result) return null;
  return (
    <div>
      {requeueable ? (
        <Button
          disabled={pending}
          aria-label={`Send again: ${label}`}
          onClick={() =>
            startTransition(async () => {
              const answer = await requeueNotificationAction({ caseId, webhookId });
              setResult(answer);
              if (answer.ok) router.refresh();
            })
          }
        >
          {pending ? "Queuing…" : "Send again"}
        </Button>
      ) : null}
      {result?.ok ? (
        <p role="status" className="mt-1 text-sm">
          Queued: the worker sends it on its next round.
        </p>
      ) : (
        <FormError result={result} />
      )}
    </div>
  );
}
