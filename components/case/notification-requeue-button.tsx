"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { Button } from "@/components/ui/button";
import { FormError } from "@/components/ui/form-error";
import { requeueNotificationAction } from "@/lib/actions/notification-actions";
import type { ActionResult } from "@/lib/actions/safe-action";

/** Puts one notification back in the worker's queue; the server bounds and audits it (decision 066). */
export function NotificationRequeueButton({
  caseId,
  webhookId,
  label,
}: {
  caseId: string;
  webhookId: string;
  label: string;
}) {
  const router = useRouter();
  const [result, setResult] = useState<ActionResult<unknown> | null>(null);
  const [pending, startTransition] = useTransition();
  return (
    <div>
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
