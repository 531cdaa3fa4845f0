import type { Metadata } from "next";
import Link from "next/link";
import { Suspense } from "react";
import { PausedWork } from "@/app/(console)/paused-work";
import { EvidenceLinks } from "@/components/evidence/evidence-links";
import { QueueFilters } from "@/components/queue/queue-filters";
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
import { COUNT_CAP, countCases, openCasesByStage, type ViewCount } from "@/lib/services/case/count-cases";
import { listCases } from "@/lib/services/case/list-cases";
import { queueFilterOptions } from "@/lib/services/case/queue-filter-options";
import { FILTER_PACKET_CAP } from "@/lib/services/evidence/export-evidence";
import { listSavedViews } from "@/lib/services/saved-view/saved-views";
import { evidenceFilterOf, evidenceQueryString } from "@/lib/validation/evidence";
import type { ListCasesQuery } from "@/lib/validation/list-cases";
import { producersOf } from "@/lib/validation/producer-filter";
import { parseQueueParams, queueHref, queueQueryString } from "@/lib/validation/queue-params";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Queue" };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

export default async function QueuePage({ searchParams }: Props) {
  // Permission first, so a refused user gets a real 403; the list streams in behind a placeholder.
  const user = await requirePageUser("case:read");
  const { query, problem } = parseQueueParams(await searchParams);
  const { cursor: _cursor, ...view } = query;
  const [options, stageCounts, views] = await Promise.all([
    queueFilterOptions(db(), user),
    openCasesByStage(db(), user, producersOf(query.producer)),
    listSavedViews(db(), user),
  ]);
  return (
    <section aria-labelledby="queue-heading">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h1 id="queue-heading" className="text-2xl font-semibold">
          Queue
        </h1>
        <p className="hidden text-sm text-slate-700 md:block">
          <kbd>j</kbd>/<kbd>k</kbd> move · <kbd>Enter</kbd> opens · <kbd>x</kbd> selects
        </p>
        <LiveRefresh />
      </div>
      <PausedWork user={user} />
      <SavedViews views={views} current={queueQueryString(view)} />
      <StageTabs query={query} counts={stageCounts} />
      <div className="mt-3">
        <QueueFilters queryString={queueQueryString(view)} options={options} />
      </div>
      {can(user.roles, "case:export_evidence") && !problem ? (
        <nav aria-label="Evidence" className="mt-2 flex justify-end text-sm">
          <EvidenceLinks
            label={`Evidence packet of this view (oldest ${FILTER_PACKET_CAP} cases at most)`}
            pageHref={`/queue/evidence${queueQueryString(view) ? `?${queueQueryString(view)}` : ""}`}
            fileHref={`/api/v1/cases/evidence?${evidenceQueryString(evidenceFilterOf(query))}`}
          />
        </nav>
      ) : null}
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
        <QueueResults user={user} query={query} assignees={options.assignees} />
      </Suspense>
    </section>
  );
}

async function QueueResults({
  user,
  query,
  assignees,
}: {
  user: UserPrincipal;
  query: ListCasesQuery;
  assignees: { id: string; name: string }[];
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
      <p
        className="mt-3 text-sm text-slate-800"
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
