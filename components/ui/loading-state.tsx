/**
 * Shown while a page's data streams in. Pages check permission before rendering this, so a refused
 * request still answers 403 (a route-level loading.tsx would commit a 200 before the check).
 */
export function LoadingState({ label }: { label: string }) {
  return (
    <div role="status" aria-live="polite" className="rounded border border-slate-300 bg-white p-4">
      <p className="text-sm text-slate-700">{label}</p>
      <div aria-hidden="true" className="mt-3 space-y-2">
        <div className="h-4 w-3/4 animate-pulse rounded bg-slate-200" />
        <div className="h-4 w-1/2 animate-pulse rounded bg-slate-200" />
        <div className="h-4 w-2/3 animate-pulse rounded bg-slate-200" />
      </div>
    </div>
  );
}
