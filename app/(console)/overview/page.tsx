import type { Metadata } from "next";
import { Suspense } from "react";
import { OverviewLive } from "@/components/overview/overview-live";
import { LoadingState } from "@/components/ui/loading-state";
import { requirePageUser, type UserPrincipal } from "@/lib/auth/session";
import { db } from "@/lib/db/client";
import { env } from "@/lib/env";
import { overviewStats } from "@/lib/services/overview/overview-stats";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Overview" };

export default async function OverviewPage() {
  const user = await requirePageUser("case:read");
  return (
    <section aria-labelledby="overview-heading">
      <h1 id="overview-heading" className="mb-3 text-2xl font-semibold">
        Overview
      </h1>
      <Suspense fallback={<LoadingState label="Loading the overview…" />}>
        <OverviewFigures user={user} />
      </Suspense>
    </section>
  );
}

async function OverviewFigures({ user }: { user: UserPrincipal }) {
  const stats = await overviewStats(db(), user, {
    alertWindowMinutes: env().ALERT_WINDOW_MINUTES,
    alertThreshold: env().ALERT_UNCERTAIN_THRESHOLD,
  });
  return <OverviewLive initial={stats} />;
}
