import Link from "next/link";
import { duplicateSentence, type OtherSide } from "@/lib/domain/duplicate-outputs";
import type { DuplicateOutputItem } from "@/lib/services/case/list-duplicate-outputs";

/** The other case of each pair, as this reader may see it (decision 072). */
function otherSides(caseId: string, items: DuplicateOutputItem[]): { id: string; other: OtherSide }[] {
  return items.map((item) => {
    const mine = !item.first.hidden && item.first.caseId === caseId;
    const other = mine ? item.second : item.first;
    const bothMine = !item.first.hidden && !item.second.hidden && item.first.caseId === item.second.caseId;
    if (bothMine) return { id: item.id, other: { kind: "same_case" } };
    if (other.hidden) return { id: item.id, other: { kind: "hidden" } };
    return { id: item.id, other: { kind: "visible", caseId: other.caseId, operationId: other.operationId } };
  });
}

/**
 * Decision 072: this case's video was also delivered for another paid job. The other operation is
 * named and linked only when the reader may open it; another producer's stays unnamed.
 */
export function DuplicateOutputFlags({ caseId, items }: { caseId: string; items: DuplicateOutputItem[] }) {
  if (items.length === 0) return null;
  return (
    <section
      aria-label="Suspected paid duplicate"
      data-testid="duplicate-output-flags"
      className="mb-4 rounded border border-amber-600 bg-amber-50 p-4 text-amber-950"
    >
      <ul className="space-y-1">
        {otherSides(caseId, items).map(({ id, other }) => (
          <li key={id} className="font-semibold">
            {other.kind === "visible" ? (
              <>
                Suspected paid duplicate: the same video was delivered for operation{" "}
                <Link href={`/cases/${other.caseId}`} className="text-brand underline">
                  {other.operationId}
                </Link>
              </>
            ) : (
              duplicateSentence(other)
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
