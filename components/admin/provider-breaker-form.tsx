"use client";

import { type FormEvent, useRef, useState } from "react";
import { ConfirmButton } from "@/components/ui/confirm-button";
import { FormError, fieldError, InlineSaveControls, TextField, useServerAction } from "@/components/ui/form";
import { resumeProviderBreakerAction, saveProviderBreakerAction } from "@/lib/actions/admin-actions";

type Settings = { unknownPercent: number; windowSeconds: number; minOutcomes: number } | null;

/** One provider's unknown-outcome breaker (decision 037); all three blank removes it. */
export function ProviderBreakerForm({ provider, settings }: { provider: string; settings: Settings }) {
  const formRef = useRef<HTMLFormElement>(null);
  const { run, pending, result } = useServerAction(saveProviderBreakerAction, formRef);
  const [saved, setSaved] = useState<string | null>(null);

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const text = (name: string) => String(form.get(name) ?? "");
    setSaved(null);
    run(
      {
        provider,
        unknownPercent: text("unknownPercent"),
        windowMinutes: text("windowMinutes"),
        minOutcomes: text("minOutcomes"),
      },
      (data) =>
        setSaved(
          data.settings === null
            ? "Saved: no breaker; unknown outcomes never pause this provider."
            : `Saved: paused when ${data.settings.unknownPercent}% of at least ${data.settings.minOutcomes} outcomes in ${data.settings.windowSeconds / 60} min are unknown.`,
        ),
    );
  }

  return (
    <form ref={formRef} onSubmit={onSubmit} noValidate className="flex flex-wrap items-end gap-3">
      <TextField
        id={`breaker-percent-${provider}`}
        path="unknownPercent"
        name="unknownPercent"
        label="Unknown outcomes, %"
        inputMode="numeric"
        autoComplete="off"
        defaultValue={settings ? String(settings.unknownPercent) : ""}
        error={fieldError(result, "unknownPercent")}
      />
      <TextField
        id={`breaker-window-${provider}`}
        path="windowMinutes"
        name="windowMinutes"
        label="Window, minutes"
        inputMode="numeric"
        autoComplete="off"
        defaultValue={settings ? String(settings.windowSeconds / 60) : ""}
        error={fieldError(result, "windowMinutes")}
      />
      <TextField
        id={`breaker-minimum-${provider}`}
        path="minOutcomes"
        name="minOutcomes"
        label="At least this many outcomes"
        inputMode="numeric"
        autoComplete="off"
        defaultValue={settings ? String(settings.minOutcomes) : ""}
        hint="All three blank: no breaker."
        error={fieldError(result, "minOutcomes")}
      />
      <InlineSaveControls label="Save breaker" pending={pending} saved={saved} result={result} />
    </form>
  );
}

/** Reopens a paused provider at once; the outcomes that paused it stop counting. */
export function ResumeProviderButton({ provider }: { provider: string }) {
  const { run, pending, result } = useServerAction(resumeProviderBreakerAction);
  return (
    <div>
      <ConfirmButton
        label="Resume sends"
        confirmLabel={`Resume sends to ${provider}`}
        question="New permits for this provider are issued again at once; only outcomes from now on count towards the next pause."
        pending={pending}
        onConfirm={() => run({ provider })}
      />
      <FormError result={result} listIssues />
    </div>
  );
}
