"use client";

import { type FormEvent, useId, useRef } from "react";
import { Button } from "@/components/ui/button";
import { FormError, fieldError, TextField, useServerAction } from "@/components/ui/form";
import { resumeScopeAction } from "@/lib/actions/pause-actions";
import type { PauseKind } from "@/lib/domain/scope-pauses";

/** Ends one pause, with the reason the audit trail keeps; the page re-reads and the pause is gone. */
export function ResumePauseForm({ kind, value, label }: { kind: PauseKind; value: string; label: string }) {
  const formRef = useRef<HTMLFormElement>(null);
  const id = useId();
  const { run, pending, result } = useServerAction(resumeScopeAction, formRef);

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    run({ kind, value, reason: String(new FormData(event.currentTarget).get("reason") ?? "") });
  }

  return (
    <form ref={formRef} onSubmit={onSubmit} noValidate className="flex flex-wrap items-end gap-2">
      <TextField
        id={`resume-reason-${id}`}
        path="reason"
        name="reason"
        label={`Why resume ${label}`}
        autoComplete="off"
        error={fieldError(result, "reason")}
      />
      <Button type="submit" variant="secondary" disabled={pending}>
        {pending ? "Resuming…" : "Resume"}
      </Button>
      <FormError result={result} />
    </form>
  );
}
