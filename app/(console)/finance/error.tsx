"use client";

import { Button } from "@/components/ui/button";

/** Figures that failed to load are never shown as zero: the page says so and offers a retry. */
export default function FinanceError({ error, retry }: { error: unknown; retry: () => void }) {
  const digest = error instanceof Error && "digest" in error ? String(error.digest) : null;
  return (
    <section aria-labelledby="finance-error-heading" className="max-w-xl">
      <h1 id="finance-error-heading" className="text-2xl font-semibold">
        Finance
      </h1>
      <div role="alert" className="mt-3 rounded border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-900">
        <p className="font-medium">The finance figures could not be loaded.</p>
        <p>
          Nothing is shown rather than numbers that might be wrong. Try again; if it persists, check the server log.
        </p>
        {digest ? <p className="mt-1 text-xs">Reference: {digest}</p> : null}
      </div>
      <Button className="mt-3" onClick={() => retry()}>
        Try again
      </Button>
    </section>
  );
}
