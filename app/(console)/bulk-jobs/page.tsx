import type { Metadata } from "next";
import { BulkJobListView } from "@/components/bulk/bulk-job-list";
import { requirePageUser } from "@/lib/auth/session";
import { db } from "@/lib/db/client";
import { listBulkJobs } from "@/lib/services/bulk-job/list-bulk-jobs";
import { bulkJobListSchema } from "@/lib/validation/bulk";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Bulk jobs" };

/** The signed-in person's bulk jobs (an admin's: everyone's), newest first (decisions 065 and 069). */
export default async function BulkJobsPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const user = await requirePageUser("case:read");
  const params = await searchParams;
  const parsed = bulkJobListSchema.safeParse({ cursor: typeof params.cursor === "string" ? params.cursor : undefined });
  const query = parsed.success ? parsed.data : {};
  const list = await listBulkJobs(db(), user, query);
  return <BulkJobListView list={list} later={query.cursor !== undefined} />;
}
