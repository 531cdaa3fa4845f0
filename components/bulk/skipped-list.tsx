import Link from "next/link";

type Skip = { caseId: string; operationId: string; code: string; message: string; at: string };

/** The cases (or holds) a bulk action left alone, each with its reason and a link to its case. */
export function SkippedList({ title, skipped }: { title: string; skipped: Skip[] }) {
  if (skipped.length === 0) return null;
  return (
    <details open={skipped.length <= 10} className="mt-2">
      <summary className="cursor-pointer font-medium">
        {title}: {skipped.length}
      </summary>
      <ul className="mt-1 max-h-48 list-disc overflow-auto break-words pl-5" data-testid="bulk-skipped">
        {skipped.map((s) => (
          <li key={`${s.at}:${s.caseId}:${s.operationId}:${s.code}`}>
            {s.caseId ? (
              <Link href={`/cases/${s.caseId}`} className="underline">
                {s.operationId || "this case"}
              </Link>
            ) : (
              s.operationId || "a hold"
            )}
            : {s.message} <span className="text-slate-600">({s.code})</span>
          </li>
        ))}
      </ul>
    </details>
  );
}
