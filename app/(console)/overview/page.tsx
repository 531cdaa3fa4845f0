import type { Metadata } from "next";
import { Suspense } from "react";
import { PausedWork } from "@/app/(console)/paused-work";
import { ProducerPicker } from "@/components/filters/producer-picker";
import { OverviewLive } from "@/components/overview/overview-live";
import { LoadingState } from "@/components/ui/loading-state";
import { requirePageUser, type UserPrincipal } from "@/lib/auth/session";
import { db } from "@/lib/db/client";
import { env } from "@/lib/env";
import { queueFilterOptions } from "@/lib/services/case/queue-filter-options";
import { overviewStats } from "@/lib/services/overview/overview-stats";
import { pageProducer, producersOf } from "@/lib/validation/producer-filter";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Overview" };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

export default async function OverviewPage({ searchParams }: Props) {
  const user = await requirePageUser("case:read");
  const producer = pageProducer(await searchParams);
  const { producers } = await queueFilterOptions(db(), user);
  return (
    <section aria-labelledby="overview-heading">
      <div className="mb-3 flex flex-wrap items-end justify-between gap-2">
        <h1 id="overview-heading" className="text-2xl font-semibold">
          Overview
        </h1>
        <ProducerPicker producers={producers} current={producer} />
      </div>
      <PausedWork user={user} />
      <Suspense key={producer ?? ""} fallback={<LoadingState label="Loading the overview…" />}>
        <OverviewFigures user={user} producer={producer} />
      </Suspense>
    </section>
  );
}

async function OverviewFigures({ user, producer }: { user: UserPrincipal; producer: string | undefined }) {
  const stats = await overviewStats(db(), user, {
    alertWindowMinutes: env().ALERT_WINDOW_MINUTES,
    alertThreshold: env().ALERT_UNCERTAIN_THRESHOLD,
    producers: producersOf(producer),
  });
  // Alerts count every producer together: a person limited to some does not open them (decision 035).
  return <OverviewLive initial={stats} producer={producer} alertsLink={user.producers === null} roles={user.roles} />;
}
