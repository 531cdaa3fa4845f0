import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { BulkJobPanel } from "@/components/bulk/bulk-job-panel";
import { BULK_VERB_WORDS, inWords } from "@/components/ui/code-words";
import { Time } from "@/components/ui/time";
import { requirePageUser } from "@/lib/auth/session";
import { db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { getBulkJob } from "@/lib/services/bulk-job/read-bulk-job";
import { bulkJobRefSchema } from "@/lib/validation/bulk";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Bulk job" };

/** One bulk job's progress, the same panel the queue and the finance desk show (decision 065). */
export default async function BulkJobPage({ params }: { params: Promise<{ id: string }> }) {
  const user = await requirePageUser("case:read");
  const parsed = bulkJobRefSchema.safeParse({ jobId: (await params).id });
  if (!parsed.success) notFound();
  const job = await getBulkJob(db(), user, parsed.data.jobId).catch((error: unknown) => {
    if (error instanceof AppError && error.code === "not_found") notFound();
    throw error;
  });
  const noun = job.kind === "holds" ? "hold" : "case";
  return (
    <section aria-labelledby="bulk-job-heading" className="space-y-3">
      <p className="text-sm">
        <a href="/bulk-jobs" className="text-brand underline">
          All bulk jobs
        </a>
      </p>
      <h1 id="bulk-job-heading" className="text-2xl font-semibold">
        Bulk job: {inWords(BULK_VERB_WORDS, job.verb)}, {job.planned} {noun}
        {job.planned === 1 ? "" : "s"}
      </h1>
      <p className="text-sm text-slate-700">
        Started <Time at={job.startedAt} />
        {job.finishedAt ? (
          <>
            , ended <Time at={job.finishedAt} />
          </>
        ) : null}
        .
      </p>
      <BulkJobPanel jobId={job.id} noun={noun} />
    </section>
  );
}
