/** A visible, announced placeholder while a list loads (never an empty table that reads as "none"). */
export function LoadingRows({ label, rows = 6 }: { label: string; rows?: number }) {
  return (
    <div role="status" aria-live="polite" className="mt-4 space-y-2">
      <span className="sr-only">{label}</span>
      {Array.from({ length: rows }, (_, i) => (
        <div key={i} className="h-8 animate-pulse rounded bg-slate-200" />
      ))}
    </div>
  );
}
