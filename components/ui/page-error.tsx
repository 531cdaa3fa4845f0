"use client";

import { useEffect, useRef } from "react";
import { Button } from "./button";

/**
 * What a console page shows when it could not load: never empty figures that look like zero,
 * a focused heading for screen readers, the server's reference, and a retry.
 */
export function PageError({ title, error, retry }: { title: string; error: unknown; retry: () => void }) {
  const headingRef = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    headingRef.current?.focus();
  }, []);
  const digest = error instanceof Error && "digest" in error ? String(error.digest) : null;
  return (
    <div role="alert" className="max-w-xl rounded border border-red-300 bg-red-50 p-4 text-red-900">
      <h1 ref={headingRef} tabIndex={-1} className="text-lg font-semibold">
        {title}
      </h1>
      <p className="mt-1 text-sm">Nothing was changed. Try again; if it keeps failing, check the server log.</p>
      {digest ? <p className="mt-1 text-xs">Reference: {digest}</p> : null}
      <Button className="mt-3" onClick={() => retry()}>
        Try again
      </Button>
    </div>
  );
}
