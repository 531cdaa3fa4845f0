"use client";

import { type ReactNode, useId, useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { FormError, fieldError, TextAreaField, useServerAction } from "@/components/ui/form";
import type { ActionResult } from "@/lib/actions/safe-action";

/**
 * A small form beside the decisions (a note, an assignment): one text, the server's verdict shown
 * at the field it names, "Done." once it is saved.
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
  const [text, setText] = useState("");
  const [saved, setSaved] = useState(false);
  const { run, pending, result, reset } = useServerAction((raw: unknown) => onSubmit(text, raw as FormData), formRef);
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
          setText("");
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
        value={text}
        onChange={(event) => setText(event.target.value)}
        error={fieldError(result, evidencePath)}
        className="mt-2"
      />
      <Button type="submit" variant="secondary" className="mt-2" disabled={pending}>
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
