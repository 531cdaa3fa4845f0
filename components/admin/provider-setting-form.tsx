"use client";

import { type FormEvent, useRef, useState } from "react";
import { fieldError, InlineSaveControls, TextField, useServerAction } from "@/components/ui/form";
import { saveProviderSettingAction } from "@/lib/actions/admin-actions";

/** One provider's settling period, edited in minutes. */
export function ProviderSettingForm({ provider, minutes }: { provider: string; minutes: number }) {
  const formRef = useRef<HTMLFormElement>(null);
  const { run, pending, result } = useServerAction(saveProviderSettingAction, formRef);
  const [saved, setSaved] = useState<string | null>(null);

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setSaved(null);
    run({ provider, settlingMinutes: String(form.get("settlingMinutes") ?? "") }, (data) =>
      setSaved(`Saved: ${Math.round(data.noJobSettlingSeconds / 60)} min.`),
    );
  }

  return (
    <form ref={formRef} onSubmit={onSubmit} noValidate className="flex flex-wrap items-end gap-3">
      <TextField
        id={`settling-${provider}`}
        path="settlingMinutes"
        name="settlingMinutes"
        label={`Settling period for ${provider} (minutes)`}
        required
        inputMode="numeric"
        defaultValue={String(minutes)}
        error={fieldError(result, "settlingMinutes")}
      />
      <InlineSaveControls label="Save" pending={pending} saved={saved} result={result} />
    </form>
  );
}
