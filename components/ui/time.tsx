import { formatWhen } from "./format";

/**
 * A moment in the console's one format (formatWhen: UTC, zone named), marked up as a <time> with
 * the exact instant on hover; `fallback` stands in when there is none ("never", "no expiry").
 */
export function Time({ at, fallback }: { at: Date | string | null | undefined; fallback?: string }) {
  if (at === null || at === undefined || at === "") return <span>{fallback ?? formatWhen(null)}</span>;
  const date = typeof at === "string" ? new Date(at) : at;
  if (Number.isNaN(date.getTime())) return <span>{String(at)}</span>;
  const iso = date.toISOString();
  return (
    <time dateTime={iso} title={iso}>
      {formatWhen(date)}
    </time>
  );
}
