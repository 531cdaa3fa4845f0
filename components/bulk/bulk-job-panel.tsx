"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { FormError } from "@/components/ui/form-error";
import { cancelBulkJobAction, readBulkJobAction } from "@/lib/actions/bulk-job-actions";
import type { ActionResult } from "@/lib/actions/safe-action";
import { BULK_JOB_STATE_WORDS, notDone } from "@/lib/domain/bulk-jobs";
import type { BulkJobView } from "@/lib/services/bulk-job/read-bulk-job";
import { SkippedList } from "./skipped-list";

async function readJob(jobId: string): Promise<BulkJobView> {
  const answer = await readBulkJobAction({ jobId });
  if (!answer.ok) throw new Error(answer.error.message);
  return answer.data;
}

/**
 * A tracked bulk job (decision 065), polled every 1.5 s while it runs: how many of the planned
 * items are done, skipped or failed, a cancel that stops the rest, and, once it ends, the counts
 * in one sentence with what was left alone and why.
 */
export function BulkJobPanel({ jobId, noun, onEnded }: { jobId: string; noun: string; onEnded?: () => void }) {
  const client = useQueryClient();
  const query = useQuery({
    queryKey: ["bulk-job", jobId],
    queryFn: () => readJob(jobId),
    refetchInterval: (q) => (q.state.data && q.state.data.state !== "running" ? false : 1_500),
  });
  const [cancelling, setCancelling] = useState(false);
  const [refused, setRefused] = useState<ActionResult<unknown> | null>(null);
  const job = query.data;
  const ended = job !== undefined && job.state !== "running";
  const told = useRef(false);
  useEffect(() => {
    if (ended && !told.current) {
      told.current = true;
      onEnded?.();
    }
  }, [ended, onEnded]);

  async function cancel() {
    setCancelling(true);
    const answer = await cancelBulkJobAction({ jobId });
    setRefused(answer.ok ? null : answer);
    await client.invalidateQueries({ queryKey: ["bulk-job", jobId] });
    setCancelling(false);
  }

  const plural = (n: number) => `${n} ${noun}${n === 1 ? "" : "s"}`;
  return (
    <div className="mt-2 rounded border border-slate-400 bg-white p-3" data-testid="bulk-job">
      {query.isError && (
        <p role="alert" className="text-amber-900">
          {(query.error as Error).message} Showing the last known progress.
        </p>
      )}
      <div role="status">
        {job ? (
          <>
            <p className="font-medium">
              {BULK_JOB_STATE_WORDS[job.state]}: {job.done} of {job.planned} done, {job.skipped} skipped, {job.failed}{" "}
              failed
              {job.state === "cancelled" ? `, ${notDone(job)} not done` : ""}.
            </p>
            <progress
              className="mt-1 w-full"
              aria-label="Progress"
              max={Math.max(1, job.planned)}
              value={job.done + job.skipped + job.failed}
            />
            {ended && (
              <p>
                Done for {plural(job.done)}; skipped {job.skips.filter((s) => s.outcome === "skipped").length}.
              </p>
            )}
            <SkippedList title="Skipped or failed" skipped={job.skips} />
          </>
        ) : (
          <p>Starting…</p>
        )}
      </div>
      {job?.state === "running" && (
        <Button className="mt-2" variant="secondary" disabled={cancelling} onClick={() => void cancel()}>
          Cancel the rest
        </Button>
      )}
      <FormError result={refused} />
    </div>
  );
}
