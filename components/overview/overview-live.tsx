"use client";

import { useQuery } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { retentionDaysText } from "@/components/retention/retention-text";
import { formatAge } from "@/components/ui/format";
import { stageLabel } from "@/components/ui/labels";
import { moneyText } from "@/components/ui/money";
import { NumCell, Row, RowHeader, Table, TableHead } from "@/components/ui/table";
import { Time } from "@/components/ui/time";
import type { Role } from "@/lib/domain/roles";
import type { OverviewStats } from "@/lib/services/overview/overview-stats";
import { CaseFlagsSummary } from "./case-flags-summary";
import { AgeBucketChart, HeldOverTimeChart } from "./overview-charts";
import { PausedProviders } from "./paused-providers";
import { ProducerNotToldSummary } from "./producer-not-told-summary";

async function fetchOverview(producer: string | undefined): Promise<OverviewStats> {
  const response = await fetch(producer ? `/api/v1/overview?${new URLSearchParams({ producer })}` : "/api/v1/overview");
  if (!response.ok) throw new Error(`The overview could not be refreshed (HTTP ${response.status}).`);
  return response.json();
}

const seconds = (value: number | null) => (value === null ? "no decisions yet" : formatAge(Math.round(value)));

/** Counts refresh every 10 s while the tab is visible; of one producer when `producer` is set. */
export function OverviewLive({
  initial,
  producer,
  alertsLink,
  roles,
}: {
  initial: OverviewStats;
  producer?: string;
  alertsLink: boolean;
  roles: readonly Role[];
}) {
  const { data: stats, isError } = useQuery({
    queryKey: ["overview", producer ?? null],
    queryFn: () => fetchOverview(producer),
    initialData: initial,
    refetchInterval: 10_000,
  });
  return (
    <div className="space-y-4">
      {isError && (
        <p role="alert" className="text-sm text-amber-900">
          Refresh failed; showing figures as of <Time at={stats.generatedAt} />.
        </p>
      )}
      {stats.alert && (
        <p role="alert" className="rounded border border-red-400 bg-red-50 p-3 font-medium text-red-900">
          Uncertainty is growing: {stats.alert.recentUncertain} uncertain submissions parked in the last{" "}
          {stats.alert.windowMinutes} minutes (threshold {stats.alert.threshold}). Possible duplicate spend: reconcile
          them before anything is retried.{" "}
          {alertsLink && (
            <a href="/alerts" className="underline">
              Alerts sent to people
            </a>
          )}
        </p>
      )}
      <PausedProviders paused={stats.pausedProviders} roles={roles} />
      <CaseFlagsSummary stats={stats} roles={roles} />
      <ProducerNotToldSummary stats={stats} />
      <h2 className="pt-2 font-semibold">Open cases by stage</h2>
      <Table caption="Open cases by stage">
        <TableHead
          columns={[
            "Stage",
            { label: "Open", align: "right" },
            { label: "Oldest", align: "right" },
            { label: "Money on hold", align: "right" },
          ]}
        />
        <tbody>
          {stats.stages.map((s) => (
            <Row key={s.stage}>
              <RowHeader>
                <a
                  className="text-brand underline"
                  href={`/queue?${new URLSearchParams({ stage: s.stage, ...(producer ? { producer } : {}) })}`}
                >
                  {stageLabel(s.stage)}
                </a>
              </RowHeader>
              <NumCell>{s.open}</NumCell>
              <NumCell>{s.oldestAgeSeconds === null ? "—" : formatAge(s.oldestAgeSeconds)}</NumCell>
              <NumCell>{s.held.map((h) => moneyText(h.micros, h.currency)).join(" + ") || "—"}</NumCell>
            </Row>
          ))}
        </tbody>
      </Table>
      <dl className="grid grid-cols-2 gap-3 md:grid-cols-4">
        {(
          [
            ["Unresolved uncertain submissions", String(stats.unresolvedUncertain)],
            [
              "Sends in flight under a permit",
              `${stats.inFlight.sending + stats.inFlight.accepted} · ${stats.inFlight.held.map((h) => moneyText(h.micros, h.currency)).join(" + ") || "nothing held"}${stats.inFlight.oldestAgeSeconds === null ? "" : ` · oldest ${formatAge(stats.inFlight.oldestAgeSeconds)}`}`,
            ],
            [
              "Review latency (24 h), median / p90",
              `${seconds(stats.reviewLatency.p50Seconds)} / ${seconds(stats.reviewLatency.p90Seconds)}`,
            ],
            ["Expired claims rescued (24 h)", String(stats.leaseRescues24h)],
            ["Failed delivery retries (24 h)", String(stats.deliveryFailures24h)],
            ["Poison actions parked (24 h)", String(stats.poisonParked24h)],
            [
              "Retention of customer text and videos",
              <>
                {retentionDaysText(stats.retention.globalDays)}
                {producerPolicies(stats.retention.producerPolicies)} · next run <Time at={stats.retention.nextRunAt} />
              </>,
            ],
            [
              "Outputs expiring within 1 h",
              `${stats.outputsExpiringSoon.count} · ${stats.outputsExpiringSoon.held.map((h) => moneyText(h.micros, h.currency)).join(" + ") || "nothing held"}`,
            ],
          ] as [string, ReactNode][]
        ).map(([label, value]) => (
          <div key={label} className="rounded border border-slate-300 bg-white p-3">
            <dt className="text-sm text-slate-700">{label}</dt>
            <dd className="text-xl font-semibold">{value}</dd>
          </div>
        ))}
      </dl>
      <div className="grid gap-4 lg:grid-cols-2">
        <section className="rounded border border-slate-300 bg-white p-3">
          <h2 className="font-semibold">Open cases by age</h2>
          <AgeBucketChart stats={stats} />
        </section>
        <section className="rounded border border-slate-300 bg-white p-3">
          <h2 className="font-semibold">Money on hold, last 14 days</h2>
          <HeldOverTimeChart stats={stats} />
        </section>
      </div>
    </div>
  );
}

/** " (1 producer with its own)", " (3 producers with their own)", or nothing. */
function producerPolicies(count: number): string {
  if (count === 0) return "";
  return count === 1 ? " (1 producer with its own)" : ` (${count} producers with their own)`;
}
