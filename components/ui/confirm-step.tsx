"use client";

import { type ReactNode, useEffect, useRef } from "react";
import { Button } from "@/components/ui/button";
import { FormError } from "@/components/ui/form-error";
import type { ActionResult } from "@/lib/actions/safe-action";
import { focusProblem } from "./form";

/** The second step of every money decision: what will be booked, in words, before it is. */
export function ConfirmStep({
  title,
  children,
  confirmLabel,
  pending,
  result,
  danger = false,
  onConfirm,
  onBack,
}: {
  title: string;
  children: ReactNode;
  confirmLabel: string;
  pending: boolean;
  result: ActionResult<unknown> | null;
  danger?: boolean;
  onConfirm: () => void;
  onBack: () => void;
}) {
  const root = useRef<HTMLDivElement>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const failed = result !== null && !result.ok;
  // A refusal replaces the confirm button, so focus goes to the explanation rather than to nowhere.
  useEffect(() => {
    if (failed) focusProblem(root.current);
  }, [failed]);
  return (
    <div ref={root} className="rounded border border-slate-400 bg-white p-3">
      <h3 ref={heading} tabIndex={-1} className="font-semibold">
        {title}
      </h3>
      <div className="mt-1 text-sm">{children}</div>
      <FormError result={result} listIssues />
      <div className="mt-3 flex gap-2">
        {failed ? null : (
          <Button variant={danger ? "danger" : "primary"} onClick={onConfirm} disabled={pending} aria-busy={pending}>
            {pending ? "Saving…" : confirmLabel}
          </Button>
        )}
        <Button variant="secondary" onClick={onBack} disabled={pending}>
          {failed ? "Close" : "Back"}
        </Button>
      </div>
    </div>
  );
}
