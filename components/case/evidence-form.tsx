"use client";

import { type ReactNode, useState, useTransition } from "react";
import { ActionError } from "@/components/ui/action-error";
import { Button } from "@/components/ui/button";
import type { ActionResult } from "@/lib/actions/safe-action";

/**
 * One small form per decision: every decision asks for evidence text, shows its typed result
 * inline, and is disabled while the worker holds the case.
 */
export function EvidenceForm({
  title,
  submitLabel,
  evidenceLabel = "Evidence",
  disabled,
  children,
  onSubmit,
  onDone,
  variant = "primary",
}: {
  title: string;
  submitLabel: string;
  evidenceLabel?: string;
  disabled?: boolean;
  children?: ReactNode;
  onSubmit: (evidence: string, form: FormData) => Promise<ActionResult<unknown>>;
  onDone?: () => void;
  variant?: "primary" | "secondary" | "danger";
}) {
  const [result, setResult] = useState<ActionResult<unknown> | null>(null);
  const [pending, startTransition] = useTransition();
  const id = title.toLowerCase().replace(/[^a-z0-9]+/g, "-");
  return (
    <form
      aria-labelledby={`${id}-title`}
      className="rounded border border-slate-300 bg-white p-3"
      onSubmit={(event) => {
        event.preventDefault();
        const form = new FormData(event.currentTarget);
        const element = event.currentTarget;
        startTransition(async () => {
          const answer = await onSubmit(String(form.get("evidence") ?? ""), form);
          setResult(answer);
          if (answer.ok) {
            element.reset();
            onDone?.();
          }
        });
      }}
    >
      <h3 id={`${id}-title`} className="text-sm font-semibold">
        {title}
      </h3>
      {children}
      <label className="mt-2 block text-sm font-medium">
        {evidenceLabel}
        <textarea
          name="evidence"
          required
          rows={2}
          className="mt-1 w-full rounded border border-slate-400 px-2 py-1 text-sm"
        />
      </label>
      <Button type="submit" variant={variant} className="mt-2" disabled={disabled || pending}>
        {pending ? "Saving…" : submitLabel}
      </Button>
      {result?.ok ? (
        <p role="status" className="mt-2 text-sm text-emerald-900">
          Done.
        </p>
      ) : null}
      <ActionError result={result} />
    </form>
  );
}
