"use client";

import { useEffect, useId, useRef, useState } from "react";
import { Button } from "@/components/ui/button";

/**
 * A destructive action in two steps, without a browser dialog: the first press asks, the second
 * acts. Focus moves to the confirming button and back when cancelled.
 */
export function ConfirmButton({
  label,
  confirmLabel,
  question,
  onConfirm,
  pending = false,
  variant = "danger",
}: {
  label: string;
  confirmLabel: string;
  question: string;
  onConfirm: () => void;
  pending?: boolean;
  variant?: "danger" | "secondary";
}) {
  const [asking, setAsking] = useState(false);
  const wrapRef = useRef<HTMLSpanElement>(null);
  const questionId = useId();
  const wasAsking = useRef(false);

  // In either state the first button is the one to land on: the confirmation, or the original again.
  useEffect(() => {
    if (asking || wasAsking.current) wrapRef.current?.querySelector("button")?.focus();
    wasAsking.current = asking;
  }, [asking]);

  if (!asking) {
    return (
      <span ref={wrapRef}>
        <Button variant="secondary" className="px-3 py-1" onClick={() => setAsking(true)} disabled={pending}>
          {pending ? "Working…" : label}
        </Button>
      </span>
    );
  }
  return (
    <span ref={wrapRef} className="inline-flex flex-wrap items-center gap-2">
      <span id={questionId} className="text-xs text-slate-800">
        {question}
      </span>
      <Button
        aria-describedby={questionId}
        variant={variant}
        className="px-3 py-1"
        onClick={() => {
          setAsking(false);
          onConfirm();
        }}
      >
        {confirmLabel}
      </Button>
      <Button variant="secondary" className="px-3 py-1" onClick={() => setAsking(false)}>
        Cancel
      </Button>
    </span>
  );
}
