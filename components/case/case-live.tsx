"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import type { Role } from "@/lib/domain/roles";
import type { CaseDetail } from "@/lib/services/case/get-case";
import { CaseActions } from "./case-actions";
import { CaseHeader, MoneySection, ObservationsSection, TimelineSection } from "./case-sections";
import { ProducerNotToldSection } from "./producer-not-told";
import { SuggestionsSection } from "./suggestions-section";
import { TechnicalDetails } from "./technical-details";

async function fetchCase(id: string): Promise<CaseDetail> {
  const response = await fetch(`/api/v1/cases/${id}`, { headers: { accept: "application/json" } });
  if (!response.ok) throw new Error(`The case could not be refreshed (HTTP ${response.status}).`);
  return response.json();
}

/**
 * The case refreshes while someone watches (every 3 s, paused in a hidden tab), so a worker's
 * claim, progress and finish appear live and conflicting decisions are disabled meanwhile.
 */
export function CaseLive({
  initial,
  user,
  reviewers,
  assignmentIsOwnership,
  readAt,
}: {
  initial: CaseDetail;
  /** When the server read `initial` (ms since the epoch): the moment the first render reckons from. */
  readAt: number;
  user: { id: string; roles: Role[] };
  reviewers: { id: string; name: string; email: string }[];
  assignmentIsOwnership: boolean;
}) {
  const client = useQueryClient();
  const query = useQuery({
    queryKey: ["case", initial.id],
    queryFn: () => fetchCase(initial.id),
    initialData: initial,
    // The server's moment of reading, not the browser's moment of hydrating: the age and the
    // time-bound choices drawn from it must come out the same in both renders, or React discards
    // the server's HTML and anything typed into it before hydration (such as a note) is lost.
    initialDataUpdatedAt: readAt,
    refetchInterval: 3_000,
  });
  const detail = query.data;
  const now = query.dataUpdatedAt;
  // After a decision the case is read again through the query that keeps it live, and nothing else.
  // Everything on screen that a decision changes is drawn from this query's data: `initialData`
  // is read once, so a router.refresh() would re-render the server page without changing what is
  // shown, and would only race the refetch. The server action's revalidatePath already keeps the
  // server-rendered page and the queue fresh for the next navigation.
  const refresh = () => {
    void client.invalidateQueries({ queryKey: ["case", initial.id] });
  };
  return (
    <div className="space-y-4">
      {query.isError && (
        <p role="alert" className="rounded border border-amber-300 bg-amber-50 p-2 text-sm">
          {(query.error as Error).message} Showing the last known state.
        </p>
      )}
      {/* The decision first (docs/decisions/062): what happened and what happens next, the decision,
          the money, the timeline; technical detail last, folded. */}
      <CaseHeader detail={detail} now={now} roles={user.roles} />
      <div className="grid gap-4 lg:grid-cols-[3fr_2fr]">
        <div className="min-w-0 space-y-4">
          <div id="decision" tabIndex={-1} className="scroll-mt-4 outline-none">
            <CaseActions
              detail={detail}
              now={now}
              user={user}
              reviewers={reviewers}
              assignmentIsOwnership={assignmentIsOwnership}
              onChanged={refresh}
            />
          </div>
          <SuggestionsSection detail={detail} user={user} onChanged={refresh} />
        </div>
        <div className="min-w-0 space-y-4">
          <ProducerNotToldSection detail={detail} roles={user.roles} onChanged={refresh} />
          <MoneySection detail={detail} />
        </div>
      </div>
      <TimelineSection detail={detail} />
      <ObservationsSection detail={detail} />
      <TechnicalDetails detail={detail} />
    </div>
  );
}
