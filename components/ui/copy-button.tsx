"use client";

import { useState } from "react";

/** Copies an ID or a hash; says so for a moment (and to screen readers). */
export function CopyButton({ value, label }: { value: string; label: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      aria-label={`Copy ${label}`}
      title={`Copy ${label}`}
      className="ml-1 rounded border border-slate-300 px-1 text-xs text-slate-700 hover:bg-slate-100"
      onClick={() => {
        void navigator.clipboard?.writeText(value).then(() => {
          setCopied(true);
          setTimeout(() => setCopied(false), 1500);
        });
      }}
    >
      <span aria-live="polite">{copied ? "copied" : "copy"}</span>
    </button>
  );
}
