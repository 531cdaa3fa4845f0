"use client";

import { type FormEvent, useRef, useState } from "react";
import { fieldError, InlineSaveControls, TextField, useServerAction } from "@/components/ui/form";
import { saveProviderPaceAction } from "@/lib/actions/admin-actions";

/** One provider's request rate, shared by every worker process; blank leaves it unpaced. */
export function ProviderPaceForm({
  provider,
  requestsPerSecond,
}: {
  provider: string;
  requestsPerSecond: number | null;
}) {
  const formRef = useRef<HTMLFormElement>(null);
  const { run, pending, result } = useServerAction(saveProviderPaceAction, formRef);
  const [saved, setSaved] = useState<string | null>(null);

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setSaved(null);
    run({ provider, requestsPerSecond: String(form.get("requestsPerSecond") ?? "") }, (data) =>
      setSaved(
        data.requestsPerSecond === null
          ? "Saved: unpaced (a Retry-After still holds every worker back)."
          : `Saved: ${data.requestsPerSecond} requests per second, for all workers together.`,
      ),
    );
  }

  return (
    <form ref={formRef} onSubmit={onSubmit} noValidate className="flex flex-wrap items-end gap-3">
      <TextField
        id={`pace-${provider}`}
        path="requestsPerSecond"
        name="requestsPerSecond"
        label={`API requests per second to ${provider}, all workers together`}
        inputMode="decimal"
        autoComplete="off"
        defaultValue={requestsPerSecond === null ? "" : String(requestsPerSecond)}
        hint="The provider's limit for the account. Blank: unpaced."
        error={fieldError(result, "requestsPerSecond")}
      />
      <InlineSaveControls label="Save rate" pending={pending} saved={saved} result={result} />
    </form>
  );
}
