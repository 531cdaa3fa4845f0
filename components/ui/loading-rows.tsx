const PLACEHOLDER_KEYS = ["a", "b", "c", "d", "e", "f", "g", "h"];

/** A visible, announced placeholder while a list loads (never an empty table that reads as "none"). */
export function LoadingRows({ label, rows = 6 }: { label: string; rows?: number }) {
  return (
    <div role="status" aria-live="polite" className="mt-4 space-y-2">
      <span className="sr-only">{label}</span>
      {PLACEHOLDER_KEYS.slice(0, rows).map((key) => (
        <div key={key} className="h-8 animate-pulse rounded bg-slate-200" />
      ))}
    </div>
  );
}
