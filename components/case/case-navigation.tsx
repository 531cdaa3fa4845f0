import type { UserPrincipal } from "@/lib/auth/session";
import { db } from "@/lib/db/client";
import { caseNeighbours } from "@/lib/services/case/case-neighbours";
import { parseQueueParams, queueQueryString } from "@/lib/validation/queue-params";

/**
 * The way back to the queue view a case was opened from (its filters, search and order), and the
 * cases before and after this one in that view. The view travels as `from`, re-read as queue
 * parameters only, so no link here can lead anywhere but the queue and its cases.
 */
export async function CaseNavigation({ user, caseId, from }: { user: UserPrincipal; caseId: string; from?: string }) {
  const { query } = parseQueueParams(Object.fromEntries(new URLSearchParams(from ?? "")));
  const { cursor: _cursor, ...view } = query;
  const viewText = queueQueryString(view);
  const { previous, next } = await caseNeighbours(db(), user, view, caseId);
  const caseHref = (id: string) => `/cases/${id}${viewText ? `?from=${encodeURIComponent(viewText)}` : ""}`;
  return (
    <nav aria-label="Queue" className="mb-2 flex flex-wrap items-center gap-x-4 gap-y-1 text-sm">
      <a href={viewText ? `/queue?${viewText}` : "/queue"} className="text-brand underline">
        ← Back to the queue
      </a>
      <span className="ml-auto flex gap-4">
        {previous ? (
          <a href={caseHref(previous.id)} rel="prev" className="text-brand underline" title={previous.operationId}>
            ‹ Previous case
          </a>
        ) : (
          <span className="text-slate-700">First in this view</span>
        )}
        {next ? (
          <a href={caseHref(next.id)} rel="next" className="text-brand underline" title={next.operationId}>
            Next case ›
          </a>
        ) : (
          <span className="text-slate-700">Last in this view</span>
        )}
      </span>
    </nav>
  );
}
