import type { Metadata } from "next";
import { forbidden } from "next/navigation";
import { ActivityFeed } from "@/components/activity/activity-feed";
import { requirePageUser } from "@/lib/auth/session";
import { db } from "@/lib/db/client";
import { isActivityGroup } from "@/lib/domain/activity-kinds";
import { listActivity } from "@/lib/services/admin/list-activity";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Activity" };

/** Changes to people, access, settings, alerts, retention and limits, newest first (decision 066). */
export default async function ActivityPage({
  searchParams,
}: {
  searchParams: Promise<{ kind?: string | string[]; before?: string | string[] }>;
}) {
  const user = await requirePageUser("admin:settings");
  if (user.producers !== null) forbidden();
  const params = await searchParams;
  const group = isActivityGroup(params.kind) ? params.kind : null;
  const before = typeof params.before === "string" ? params.before : null;
  const page = await listActivity(db(), user, { group, before });
  return <ActivityFeed page={page} group={group} older={before !== null} />;
}
