import type { Neighbour } from "@/lib/services/case/case-neighbours";
import { CaseKeys } from "./case-keys";

/**
 * The way back to the queue view a case was opened from (its filters, search and order), and the
 * cases before and after this one in that view, by link and by key (j, k, Escape). The view travels
 * as `from`, re-read as queue parameters only, so no link here can lead anywhere but the queue and
 * its cases.
 */
export function CaseNavigation({
  viewText,
  previous,
  next,
}: {
  /** The view as the queue's URL query (re-written by the queue's own parser). */
  viewText: string;
  previous: Neighbour;
  next: Neighbour;
}) {
  const caseHref = (id: string) => `/cases/${id}${viewText ? `?from=${encodeURIComponent(viewText)}` : ""}`;
  const queueHref = viewText ? `/queue?${viewText}` : "/queue";
  return (
    <nav aria-label="Queue" className="mb-2 flex flex-wrap items-center gap-x-4 gap-y-1 text-sm">
      <a href={queueHref} className="text-brand underline">
        ← Back to the queue
      </a>
      <CaseKeys
        previous={previous ? caseHref(previous.id) : null}
        next={next ? caseHref(next.id) : null}
        queue={queueHref}
      />
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
