"use client";

import { useState, useTransition } from "react";
import { Button } from "@/components/ui/button";
import { FormError } from "@/components/ui/form-error";
import { Time } from "@/components/ui/time";
import { resendNotificationsAction } from "@/lib/actions/case-actions";
import type { ActionResult } from "@/lib/actions/safe-action";
import { eventTypeWords } from "@/lib/domain/notification-attempts";
import { can, type Role } from "@/lib/domain/roles";
import type { CaseDetail } from "@/lib/services/case/get-case";

/**
 * The producer was not told what became of this case: its messages were given up (a 410 answer, or
 * every send failed). Shown whatever the case's state, with a resend for those who may (decision 045).
 */
export function ProducerNotToldSection({
  detail,
  roles,
  onChanged,
}: {
  detail: CaseDetail;
  roles: Role[];
  onChanged: () => void;
}) {
  const [result, setResult] = useState<ActionResult<unknown> | null>(null);
  const [pending, startTransition] = useTransition();
  if (detail.producerNotTold.length === 0) return null;
  return (
    <section
      aria-labelledby="producer-not-told-heading"
      data-testid="producer-not-told"
      className="rounded border border-amber-500 bg-amber-50 p-4 text-sm"
    >
      <h2 id="producer-not-told-heading" className="font-semibold">
        Producer not told
      </h2>
      <p className="mt-1">
        {detail.producer} was not told about this case: its notification endpoint gave up on these messages.
      </p>
      <ul className="mt-1 list-disc pl-5">
        {detail.producerNotTold.map((m) => (
          <li key={m.webhookId}>
            {eventTypeWords(m.eventType)} after {m.sends} {m.sends === 1 ? "send" : "sends"} (
            {m.lastStatus === null ? "no answer" : `last answer HTTP ${m.lastStatus}`}), given up{" "}
            <Time at={m.givenUpAt} />
          </li>
        ))}
      </ul>
      {can(roles, "case:notify_producer") && (
        <>
          <Button
            className="mt-2"
            disabled={pending}
            onClick={() =>
              startTransition(async () => {
                const answer = await resendNotificationsAction({ caseId: detail.id });
                setResult(answer);
                if (answer.ok) onChanged();
              })
            }
          >
            {pending ? "Sending…" : "Resend to the producer"}
          </Button>
          <FormError result={result} />
        </>
      )}
    </section>
  );
}
