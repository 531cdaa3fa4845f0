import type { Metadata } from "next";
import Link from "next/link";
import { Suspense } from "react";
import { parseQueueParams, queueHref } from "@/components/queue/parse-queue-params";
import { QueueFilters } from "@/components/queue/queue-filters";
import { QueueView } from "@/components/queue/queue-view";
import { LoadingRows } from "@/components/ui/loading-rows";
import { requirePageUser, type UserPrincipal } from "@/lib/auth/session";
import { db } from "@/lib/db/client";
import { can } from "@/lib/domain/roles";
import { listCases } from "@/lib/services/case/list-cases";
import type { ListCasesQuery } from "@/lib/validation/list-cases";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Queue" };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

export default async function QueuePage({ searchParams }: Props) {
  // Permission first, so a refused user gets a real 403; the list streams in behind a placeholder.
  const user = await requirePageUser("case:read");
  const { query, problem } = parseQueueParams(await searchParams);
  return (
    <section aria-labelledby="queue-heading">
      <div className="flex items-baseline justify-between">
        <h1 id="queue-heading" className="text-2xl font-semibold">
          Queue
        </h1>
        <p className="text-sm text-slate-700">
          <kbd>j</kbd>/<kbd>k</kbd> move · <kbd>Enter</kbd> opens · <kbd>x</kbd> selects
        </p>
      </div>
      <div className="mt-3">
        <QueueFilters query={query} />
      </div>
      {problem && (
        <p role="alert" className="mt-2 text-sm text-amber-900">
          {problem}
        </p>
      )}
      <Suspense key={JSON.stringify(query)} fallback={<LoadingRows label="Loading cases…" />}>
        <QueueResults user={user} query={query} />
      </Suspense>
    </section>
  );
}

async function QueueResults({ user, query }: { user: UserPrincipal; query: ListCasesQuery }) {
  const page = await listCases(db(), user, query);
  const { cursor: _cursor, ...base } = query;
  return (
    <>
      <QueueView rows={page.items} query={query} canApprove={can(user.roles, "case:approve")} />
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
