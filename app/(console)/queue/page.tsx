import type { Metadata } from "next";
import Link from "next/link";
import { type ReactNode, Suspense } from "react";
import { PausedWork } from "@/app/(console)/paused-work";
import { EvidenceLinks } from "@/components/evidence/evidence-links";
import { QueueFilters } from "@/components/queue/queue-filters";
import { QueueShortcuts } from "@/components/queue/queue-shortcuts";
import { QueueView } from "@/components/queue/queue-view";
import { SavedViews } from "@/components/queue/saved-views";
import { sortLinks } from "@/components/queue/sort-links";
import { StageTabs } from "@/components/queue/stage-tabs";
import { LiveRefresh } from "@/components/ui/live-refresh";
import { LoadingState } from "@/components/ui/loading-state";
import { requirePageUser, type UserPrincipal } from "@/lib/auth/session";
import { db } from "@/lib/db/client";
import { bulkVerbsFor } from "@/lib/domain/bulk-verbs";
import { PARTIAL_SEARCH_MIN } from "@/lib/domain/queue-search";
import { can } from "@/lib/domain/roles";
import {
  COUNT_CAP,
  countCases,
  narrowsBeyondProducer,
  stageCounts,
  type ViewCount,
} from "@/lib/services/case/count-cases";
import { QUEUE_EXPORT_CAP } from "@/lib/services/case/export-queue-csv";
import { listCases } from "@/lib/services/case/list-cases";
import { queueFilterOptions } from "@/lib/services/case/queue-filter-options";
import { FILTER_PACKET_CAP } from "@/lib/services/evidence/export-evidence";
import { listSavedViews } from "@/lib/services/saved-view/saved-views";
import { evidenceFilterOf, evidenceQueryString } from "@/lib/validation/evidence";
import { type ListCasesQuery, queueExportQueryString } from "@/lib/validation/list-cases";
import { parseQueueParams, queueHref, queueQueryString } from "@/lib/validation/queue-params";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Queue" };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

export default async function QueuePage({ searchParams }: Props) {
  // Permission first, so a refused user gets a real 403; the list streams in behind a placeholder.
  const user = await requirePageUser("case:read");
  const { query, problem } = parseQueueParams(await searchParams);
  const { cursor: _cursor, ...view } = query;
  const [options, views] = await Promise.all([queueFilterOptions(db(), user), listSavedViews(db(), user)]);
  const filtered = narrowsBeyondProducer(query);
  // The view taken away: as CSV for anyone who reads the queue, as signed evidence for those who may export it.
  const exports = problem ? null : (
    <div className="flex flex-wrap gap-x-4 gap-y-1 text-sm">
      <a href={`/api/v1/cases/export?${queueExportQueryString(query)}`} download className="text-brand underline">
        Download CSV (first {QUEUE_EXPORT_CAP.toLocaleString("en-US")} cases)
      </a>
      {can(user.roles, "case:export_evidence") ? (
        <nav aria-label="Evidence">
          <EvidenceLinks
            label={`Evidence packet of this view (oldest ${FILTER_PACKET_CAP} cases at most)`}
            pageHref={`/queue/evidence${queueQueryString(view) ? `?${queueQueryString(view)}` : ""}`}
            fileHref={`/api/v1/cases/evidence?${evidenceQueryString(evidenceFilterOf(query))}`}
          />
        </nav>
      ) : null}
    </div>
  );
  return (
    <section aria-labelledby="queue-heading">
      <div className="flex flex-wrap items-center gap-x-4 gap-y-1">
        <h1 id="queue-heading" className="text-2xl font-semibold">
          Queue
        </h1>
        <SavedViews views={views} current={queueQueryString(view)} />
        <span className="ml-auto flex items-center gap-3">
          <QueueShortcuts />
          <LiveRefresh />
        </span>
      </div>
      <PausedWork user={user} />
      <Suspense key={`tabs-${JSON.stringify(view)}`} fallback={<StageTabs query={query} filtered={filtered} />}>
        <CountedTabs user={user} query={query} filtered={filtered} />
      </Suspense>
      <div className="mt-2">
        <QueueFilters queryString={queueQueryString(view)} options={options} />
      </div>
      {problem && (
        <p role="alert" className="mt-2 text-sm text-amber-900">
          {problem}
        </p>
      )}
      <Suspense
        key={JSON.stringify(query)}
        fallback={
          <div className="mt-4">
            <LoadingState label="Loading cases…" />
          </div>
        }
      >
        <QueueResults user={user} query={query} assignees={options.assignees} exports={exports} />
      </Suspense>
    </section>
  );
}

/** The stage tabs with the view's counts, streamed in beside the rows (decision 063). */
async function CountedTabs({
  user,
  query,
  filtered,
}: {
  user: UserPrincipal;
  query: ListCasesQuery;
  filtered: boolean;
}) {
  return <StageTabs query={query} filtered={filtered} counts={await stageCounts(db(), user, query)} />;
}

async function QueueResults({
  user,
  query,
  assignees,
  exports,
}: {
  user: UserPrincipal;
  query: ListCasesQuery;
  assignees: { id: string; name: string }[];
  exports: ReactNode;
}) {
  // The count starts with the page but never holds its rows: it streams in behind them.
  const total = countCases(db(), user, query);
  const page = await listCases(db(), user, query);
  const { cursor: _cursor, ...base } = query;
  // An empty page shows no count; its promise is still settled, so a failure there is not unhandled.
  if (page.items.length === 0) total.catch(() => {});
  const empty = page.items.length === 0 ? await emptyExplanation(user, query) : null;
  const later = Boolean(query.cursor);
  return (
    <>
      <div className="mt-2 flex flex-wrap items-baseline justify-between gap-2">
        <p
          className="text-sm text-slate-800"
          data-testid="queue-count"
          data-view={queueQueryString(base)}
          aria-live="polite"
        >
          {page.items.length === 0 ? (
            "No cases in this view."
          ) : (
            <Suspense fallback={`Showing ${page.items.length.toLocaleString("en-US")}${later ? " more" : ""} cases…`}>
              <Showing rows={page.items.length} total={total} later={later} />
            </Suspense>
          )}
        </p>
        {page.items.length > 0 ? exports : null}
      </div>
      <QueueView
        rows={page.items}
        query={query}
        bulkVerbs={bulkVerbsFor(user.roles)}
        assignees={assignees}
        sortLinks={sortLinks(query)}
        empty={empty}
      />
      <nav aria-label="Pages" className="mt-3 flex gap-4 text-sm">
        {query.cursor && (
          <Link href={queueHref(base)} className="text-brand underline">
            First page
          </Link>
        )}
        {page.nextCursor && (
          <Link href={queueHref({ ...base, cursor: page.nextCursor })} className="text-brand underline">
            Next page
          </Link>
        )}
      </nav>
    </>
  );
}

async function Showing({ rows, total, later }: { rows: number; total: Promise<ViewCount>; later: boolean }) {
  const count = await total;
  const shown = `Showing ${rows.toLocaleString("en-US")}${later ? " more" : ""}`;
  if (!count) return `${shown} cases (too many to count quickly)`;
  const of = count.more ? `more than ${COUNT_CAP.toLocaleString("en-US")}` : count.count.toLocaleString("en-US");
  return `${shown} of ${of} ${count.count === 1 && !count.more ? "case" : "cases"}`;
}

/** Why a view is empty, and where the cases it may be looking for are. */
async function emptyExplanation(user: UserPrincipal, query: ListCasesQuery) {
  const { cursor: _cursor, ...base } = query;
  const short = query.q !== undefined && query.q.length < PARTIAL_SEARCH_MIN;
  const resolved =
    query.q && !query.state && !query.flag ? await countCases(db(), user, { ...base, state: "resolved" }) : undefined;
  return (
    <>
      <p>
        {query.q
          ? `No ${query.state ? "" : "open "}case matches “${query.q}” in this view.`
          : "No cases match this view."}
      </p>
      {short ? (
        <p className="mt-1 text-sm">
          Text shorter than {PARTIAL_SEARCH_MIN} characters matches whole IDs only; type more to match part of one.
        </p>
      ) : null}
      {resolved === null ? (
        <p className="mt-1 text-sm">
          <a href={queueHref({ ...base, state: "resolved" })} className="text-brand underline">
            Look among the resolved cases
          </a>
        </p>
      ) : resolved && resolved.count > 0 ? (
        <p className="mt-1 text-sm">
          <a href={queueHref({ ...base, state: "resolved" })} className="text-brand underline">
            {resolved.more ? `More than ${COUNT_CAP.toLocaleString("en-US")}` : resolved.count.toLocaleString("en-US")}{" "}
            resolved {resolved.count === 1 ? "case matches" : "cases match"}: show{" "}
            {resolved.count === 1 ? "it" : "them"}
          </a>
        </p>
      ) : null}
      {query.stage || query.provider || query.producer || query.minAmountMicros !== undefined ? (
        <p className="mt-1 text-sm">Other filters are on; clearing them may find more.</p>
      ) : null}
    </>
  );
}
