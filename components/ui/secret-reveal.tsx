"use client";

import { useEffect, useId, useRef, useState } from "react";
import { Button } from "@/components/ui/button";

/**
 * A secret the server returned exactly once (password, API key, token, signing secret). It lives only
 * in this component's state: reloading or dismissing the page loses it for good, by design.
 */
export function SecretReveal({
  title,
  secret,
  note,
  onDismiss,
}: {
  title: string;
  secret: string;
  note?: string;
  onDismiss: () => void;
}) {
  const headingRef = useRef<HTMLHeadingElement>(null);
  const id = useId();
  const [copied, setCopied] = useState<"idle" | "copied" | "failed">("idle");

  useEffect(() => {
    headingRef.current?.focus();
  }, []);

  async function copy() {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied("copied");
    } catch {
      setCopied("failed");
    }
  }

  return (
    <section
      aria-labelledby={`${id}-heading`}
      data-testid="secret-reveal"
      className="mt-4 rounded border border-amber-400 bg-amber-50 p-4"
    >
      <h3 id={`${id}-heading`} ref={headingRef} tabIndex={-1} className="font-semibold text-slate-900">
        {title}
      </h3>
      <p className="mt-1 text-sm text-slate-800">
        Copy it now: it is shown only this once and cannot be shown again.{note ? ` ${note}` : ""}
      </p>
      <label htmlFor={`${id}-secret`} className="mt-3 block text-sm font-medium">
        Secret
      </label>
      <div className="mt-1 flex flex-wrap gap-2">
        <input
          id={`${id}-secret`}
          readOnly
          value={secret}
          onFocus={(event) => event.currentTarget.select()}
          className="min-w-0 flex-1 rounded border border-slate-400 bg-white px-3 py-2 font-mono text-sm"
          spellCheck={false}
          autoComplete="off"
        />
        <Button variant="secondary" onClick={copy}>
          Copy
        </Button>
        <Button variant="secondary" onClick={onDismiss}>
          I have stored it
        </Button>
      </div>
      <p role="status" className="mt-1 min-h-5 text-xs text-slate-700">
        {copied === "copied"
          ? "Copied to the clipboard."
          : copied === "failed"
            ? "Copy failed; select and copy it by hand."
            : ""}
      </p>
    </section>
  );
}
