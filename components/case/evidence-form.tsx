"use client";

import { type ReactNode, useEffect, useId, useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { FormError, fieldError, TextAreaField, useServerAction } from "@/components/ui/form";
import type { ActionResult } from "@/lib/actions/safe-action";

/**
 * A small form beside the decisions (a note, an assignment): one text, the server's verdict shown
 * at the field it names, "Done." once it is saved.
 *
 * The text is an uncontrolled field read from the form when it is sent, so words typed into the
 * server-rendered page before it hydrates stay in the field (a controlled value would be set back to
 * the empty state on hydration). The button waits for hydration: sent before, the browser would
 * post the form to the page itself and the text would be lost.
 */
export function EvidenceForm({
  title,
  submitLabel,
  evidenceLabel,
  evidencePath,
  children,
  onSubmit,
  onDone,
}: {
  title: string;
  submitLabel: string;
  evidenceLabel: string;
  /** The issue path the server reports for the text. */
  evidencePath: string;
  children?: (result: ActionResult<unknown> | null) => ReactNode;
  onSubmit: (text: string, form: FormData) => Promise<ActionResult<unknown>>;
  onDone?: () => void;
}) {
  const formRef = useRef<HTMLFormElement>(null);
  const id = useId();
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  const [saved, setSaved] = useState(false);
  const { run, pending, result, reset } = useServerAction((raw: unknown) => {
    const form = raw as FormData;
    return onSubmit(String(form.get("text") ?? ""), form);
  }, formRef);
  return (
    <form
      ref={formRef}
      aria-labelledby={`${id}-title`}
      className="rounded border border-slate-300 bg-white p-3"
      onSubmit={(event) => {
        event.preventDefault();
        if (pending) return;
        setSaved(false);
        reset();
        run(new FormData(event.currentTarget), () => {
          const field = formRef.current?.elements.namedItem("text");
          if (field instanceof HTMLTextAreaElement) field.value = "";
          setSaved(true);
          onDone?.();
        });
      }}
    >
      <h3 id={`${id}-title`} className="text-sm font-semibold">
        {title}
      </h3>
      {children?.(result)}
      <TextAreaField
        id={`${id}-text`}
        path={evidencePath}
        label={evidenceLabel}
        required
        rows={2}
        name="text"
        defaultValue=""
        error={fieldError(result, evidencePath)}
        className="mt-2"
      />
      <Button type="submit" variant="secondary" className="mt-2" disabled={pending || !hydrated}>
        {pending ? "Saving…" : submitLabel}
      </Button>
      {saved ? (
        <p role="status" className="mt-2 text-sm text-emerald-900">
          Done.
        </p>
      ) : null}
      <FormError result={result} />
    </form>
  );
}
