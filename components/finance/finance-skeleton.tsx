/** Shown while the figures load; says so in words, not only with grey boxes. */
export function FinanceSkeleton() {
  return (
    <div aria-busy="true">
      <p role="status" className="mt-4 text-sm text-slate-700">
        Loading holds, totals and replacement requests…
      </p>
      <div aria-hidden="true" className="mt-3 grid gap-3">
        {["exposure", "totals", "requests", "holds"].map((key) => (
          <div key={key} className="h-16 animate-pulse rounded bg-slate-200" />
        ))}
      </div>
    </div>
  );
}
