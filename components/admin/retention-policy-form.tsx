"use client";

import { type FormEvent, useRef, useState } from "react";
import { fieldError, InlineSaveControls, TextField, useServerAction } from "@/components/ui/form";
import { saveRetentionPolicyAction } from "@/lib/actions/admin-actions";

/** The global retention policy (producer blank) or one producer's own: days, "off", or "global". */
export function RetentionPolicyForm() {
  const formRef = useRef<HTMLFormElement>(null);
  const { run, pending, result } = useServerAction(saveRetentionPolicyAction, formRef);
  const [saved, setSaved] = useState<string | null>(null);

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setSaved(null);
    run({ producer: String(form.get("producer") ?? ""), days: String(form.get("days") ?? "") }, (data) => {
      const who = data.producer ?? "every producer without its own policy";
      setSaved(
        data.days === null
          ? `Saved: retention off for ${who}.`
          : data.days === "global"
            ? `Saved: ${data.producer} follows the global policy.`
            : `Saved: ${who} keeps customer text and videos ${data.days} days after resolution.`,
      );
    });
  }

  return (
    <form
      ref={formRef}
      onSubmit={onSubmit}
      noValidate
      aria-label="Retention policy"
      className="flex flex-wrap items-end gap-3"
    >
      <TextField
        id="retention-producer"
        path="producer"
        name="producer"
        label="Producer"
        autoComplete="off"
        hint="Blank: the global policy."
        error={fieldError(result, "producer")}
      />
      <TextField
        id="retention-days"
        path="days"
        name="days"
        label="Days after resolution"
        autoComplete="off"
        hint='A number of days, "off", or (for a producer) "global".'
        error={fieldError(result, "days")}
      />
      <InlineSaveControls label="Save policy" pending={pending} saved={saved} result={result} />
    </form>
  );
}
