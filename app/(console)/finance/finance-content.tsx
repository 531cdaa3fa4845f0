import Link from "next/link";
import { AgingTable } from "@/components/finance/aging-table";
import { Announcer } from "@/components/finance/announcer";
import { BulkDecide } from "@/components/finance/bulk-decide";
import { DuplicateOutputs } from "@/components/finance/duplicate-outputs";
import { ExportForm } from "@/components/finance/export-form";
import { ExposureSummary } from "@/components/finance/exposure-summary";
import { financeHref } from "@/components/finance/finance-href";
import { HoldSearch } from "@/components/finance/hold-search";
import { HoldStatusTabs, OpenHoldsTable, ResolvedHoldsTable } from "@/components/finance/holds-table";
import { LateCharges } from "@/components/finance/late-charges";
import { NeedsDecisionSummary } from "@/components/finance/needs-decision";
import { ProviderModelTable } from "@/components/finance/provider-model-totals";
import { RecentDecisions } from "@/components/finance/recent-decisions";
import { ReplacementRequests } from "@/components/finance/replacement-requests";
import { FinanceSection } from "@/components/finance/section";
import { SpendLimitForm } from "@/components/finance/spend-limit-form";
import { SpendLimitsTable } from "@/components/finance/spend-limits-table";
import { StatusTotalsTable } from "@/components/finance/status-totals";
import { SuspectedDuplicates } from "@/components/finance/suspected-duplicates";
import type { UserPrincipal } from "@/lib/auth/session";
import { db } from "@/lib/db/client";
import { can } from "@/lib/domain/roles";
import { listDuplicateOutputs } from "@/lib/services/case/list-duplicate-outputs";
import { listSuspectedDuplicates } from "@/lib/services/case/list-suspected-duplicates";
import { getHeldByAge } from "@/lib/services/finance/finance-aging";
import { getExposure } from "@/lib/services/finance/finance-exposure";
import { getNeedsDecision } from "@/lib/services/finance/finance-needs-decision";
import { listRecentDecisions } from "@/lib/services/finance/finance-recent-decisions";
import { getFinanceTotals } from "@/lib/services/finance/finance-totals";
import { listOpenLateCharges } from "@/lib/services/hold/list-late-charges";
import { listPendingReplacementRequests } from "@/lib/services/replacement/list-replacement-requests";
import { listSpendLimits } from "@/lib/services/spend-limit/list-spend-limits";
import type { ListHoldsQuery } from "@/lib/validation/finance";
import { producersOf } from "@/lib/validation/producer-filter";
import { loadHoldsPage } from "./load-holds-page";

/**
 * Everything below the heading: read through the finance services, which check hold:read again.
 * With `producer`, the figures, the holds list and the export are of that producer's holds; the
 * replacement requests and spend limits stay fleet-wide.
 */
export async function FinanceContent({
  actor,
  query,
  producer,
}: {
  actor: UserPrincipal;
  query: ListHoldsQuery;
  producer?: string;
}) {
  const now = new Date();
  const producers = producersOf(producer);
  const [
    totals,
    aging,
    exposure,
    requests,
    holds,
    needsDecisionRows,
    duplicates,
    limits,
    lateCharges,
    decided,
    sameVideo,
  ] = await Promise.all([
    getFinanceTotals(db(), actor, producers),
    getHeldByAge(db(), actor, now, producers),
    getExposure(db(), actor, producers),
    listPendingReplacementRequests(db(), actor, now),
    loadHoldsPage(actor, query, now),
    getNeedsDecision(db(), actor, producers),
    listSuspectedDuplicates(db(), actor),
    listSpendLimits(db(), actor, now),
    listOpenLateCharges(db(), actor, producers),
    listRecentDecisions(db(), actor, producers),
    listDuplicateOutputs(db(), actor),
  ]);
  const canSetLimits = can(actor.roles, "spend_limit:set");
  const needsDecision = query.view === "needs_decision";
  const count = (status: "held" | "settled" | "released") =>
    totals.byCurrency.reduce((sum, row) => sum + row[status].count, 0);
  const today = now.toISOString().slice(0, 10);
  const operation = query.operation;
  const shown = needsDecision ? "resolved case's" : query.status;
  const noHolds = totals.byCurrency.length === 0 ? "No holds yet: they appear when a producer parks a case." : null;

  return (
    <Announcer>
      <ExposureSummary rows={exposure} />
      <NeedsDecisionSummary rows={needsDecisionRows} active={needsDecision} producer={producer} />
      {needsDecision && can(actor.roles, "hold:decide") ? <BulkDecide producer={producer} /> : null}
      <FinanceSection id="totals" title="Holds by status" empty={noHolds}>
        <StatusTotalsTable rows={totals.byCurrency} />
        <p id="status-totals-note" className="mt-1 text-xs text-slate-600">
          Released includes the unused part of partly settled holds. Overage is charged beyond what was held.
          Corrections are the differences the providers' own usage figures posted after a hold was settled (a refund is
          negative); charged in total is settled, overage, charged after release and corrections together.
        </p>
      </FinanceSection>
      {lateCharges.length ? (
        <FinanceSection
          id="charged-after-release"
          title="Charged after release"
          description="The provider completed these jobs after their hold was released or written off: the charge is booked and flagged until finance decides it."
        >
          <LateCharges items={lateCharges} canDecide={can(actor.roles, "hold:decide")} />
        </FinanceSection>
      ) : null}
      <FinanceSection
        id="replacements"
        title="Replacement requests awaiting finance"
        empty={requests.items.length ? null : "No replacement requests are waiting for a decision."}
      >
        <ReplacementRequests
          items={requests.items}
          viewerId={actor.userId}
          canDecide={can(actor.roles, "replacement:authorize")}
        />
      </FinanceSection>
      <FinanceSection
        id="spend-limits"
        title="Spend limits"
        description="The most replacements may authorise per currency in a rolling hour and 24 hours, and the most a producer's sends (or one model's) may hold per calendar hour and UTC day; an authorisation or a send permit past a limit is refused."
      >
        {limits.length ? (
          <SpendLimitsTable rows={limits} canSet={canSetLimits} />
        ) : (
          <p className="rounded border border-dashed border-slate-400 bg-white px-4 py-3 text-sm text-slate-700">
            No spend limits: replacements are limited only by finance's decisions, and sends by nothing.
          </p>
        )}
        {canSetLimits ? <SpendLimitForm /> : null}
      </FinanceSection>
      {duplicates.length ? (
        <FinanceSection
          id="suspected-duplicates"
          title="Suspected duplicates"
          description="A replacement was authorised on a “no job exists” verdict, and the original job turned up afterwards: the provider may charge both."
        >
          <SuspectedDuplicates items={duplicates} />
        </FinanceSection>
      ) : null}
      {sameVideo.length ? (
        <FinanceSection
          id="duplicate-outputs"
          title="Same video delivered twice"
          description="Two paid jobs delivered identical files (the same SHA-256), newest first: the provider most likely charged twice for one video. Another producer's operation is shown only to people who work for it."
        >
          <DuplicateOutputs items={sameVideo} />
        </FinanceSection>
      ) : null}
      <FinanceSection id="holds" title="Holds">
        <HoldStatusTabs
          current={query.status}
          counts={{ held: count("held"), settled: count("settled"), released: count("released") }}
          producer={producer}
          operation={operation}
        />
        <HoldSearch
          operation={operation}
          status={query.status}
          view={needsDecision ? "needs_decision" : undefined}
          producer={producer}
        />
        {holds.notice ? <p className="mt-2 text-sm text-amber-900">{holds.notice}</p> : null}
        {holds.items.length === 0 ? (
          <p className="mt-3 text-sm text-slate-700">
            {operation
              ? `No ${shown} holds of an operation whose ID is or starts with “${operation}”.`
              : needsDecision
                ? "No resolved case holds money."
                : `No ${query.status} holds.`}
          </p>
        ) : query.status === "held" || needsDecision ? (
          <OpenHoldsTable items={holds.items} canDecide={can(actor.roles, "hold:decide")} />
        ) : (
          <ResolvedHoldsTable items={holds.items} />
        )}
        <nav aria-label="Holds pages" className="mt-2 flex gap-4 text-sm">
          {query.cursor ? (
            <Link
              className="text-brand underline"
              href={financeHref(
                { ...(needsDecision ? { view: "needs_decision" } : { status: query.status }), operation },
                producer,
              )}
            >
              First page
            </Link>
          ) : null}
          {holds.nextCursor ? (
            <Link
              className="text-brand underline"
              href={financeHref(
                {
                  ...(needsDecision ? { view: "needs_decision" } : { status: query.status }),
                  operation,
                  cursor: holds.nextCursor,
                },
                producer,
              )}
            >
              Next page
            </Link>
          ) : null}
        </nav>
      </FinanceSection>
      <FinanceSection
        id="recently-decided"
        title="Recently decided"
        description="Finance's last 20 decisions on money: holds settled, released or written off, charges after release decided, replacements authorised or declined."
        empty={decided.length ? null : "Nothing decided yet."}
      >
        <RecentDecisions items={decided} />
      </FinanceSection>
      <FinanceSection
        id="aging"
        title="Held by age"
        empty={noHolds ?? (aging.length ? null : "No money is held right now.")}
      >
        <AgingTable rows={aging} />
      </FinanceSection>
      <FinanceSection id="providers" title="By provider and model" empty={noHolds}>
        <ProviderModelTable rows={totals.byProviderModel} />
      </FinanceSection>
      <FinanceSection id="export" title="Export" description="Holds or ledger entries for a date range, as CSV.">
        <ExportForm defaultFrom={`${today.slice(0, 8)}01`} defaultTo={today} producer={producer} />
      </FinanceSection>
    </Announcer>
  );
}
