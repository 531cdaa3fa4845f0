import { StageBadge, StateBadge } from "@/components/ui/badge";
import type { OperationMatch } from "@/lib/services/case/find-cases-by-operation";

/** Several producers used the same operation ID: the person picks the case they meant. */
export function OperationMatches({ operationId, matches }: { operationId: string; matches: OperationMatch[] }) {
  return (
    <section aria-labelledby="operation-matches-heading" className="space-y-3">
      <h1 id="operation-matches-heading" className="text-xl font-semibold">
        Operation <span className="break-all font-mono">{operationId}</span>: {matches.length} cases
      </h1>
      <p className="text-sm text-slate-700">
        Operation IDs are unique per producer only; these producers each have one. Choose the case you meant.
      </p>
      <ul className="space-y-2" data-testid="operation-matches">
        {matches.map((match) => (
          <li
            key={match.caseId}
            className="flex flex-wrap items-center gap-2 rounded border border-slate-300 bg-white p-3"
          >
            <a href={`/cases/${match.caseId}`} className="font-medium text-brand underline">
              {match.producer}
            </a>
            <StageBadge stage={match.stage} />
            <StateBadge state={match.state} />
          </li>
        ))}
      </ul>
    </section>
  );
}
