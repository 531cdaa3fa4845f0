import { BULK_VERB_WORDS, inWords } from "@/components/ui/code-words";
import { Table, TableHead } from "@/components/ui/table";
import { Time } from "@/components/ui/time";
import { BULK_JOB_STATE_WORDS } from "@/lib/domain/bulk-jobs";
import type { BulkJobList } from "@/lib/services/bulk-job/list-bulk-jobs";

/**
 * A person's bulk jobs (an admin's: everyone's), newest first, each linked to its progress, so a
 * job started from the queue or the finance desk can be found again after leaving it (decision 069).
 */
export function BulkJobListView({ list, later }: { list: BulkJobList; later: boolean }) {
  return (
    <section aria-labelledby="bulk-jobs-heading" className="space-y-3">
      <div>
        <h1 id="bulk-jobs-heading" className="text-2xl font-semibold">
          Bulk jobs
        </h1>
        <p className="mt-1 text-sm text-slate-700">
          {list.everyone ? "Every bulk job" : "The bulk jobs you started"}, newest first. A job keeps running after you
          leave the page that started it.
        </p>
      </div>
      {list.items.length === 0 ? (
        <p className="rounded border border-dashed border-slate-400 bg-white p-4 text-sm text-slate-700">
          {later ? "No older bulk jobs." : "No bulk jobs yet. Pick cases in the queue to start one."}
        </p>
      ) : (
        <Table caption="Bulk jobs, newest first">
          <TableHead
            columns={[
              "Action",
              "Status",
              { label: "Progress", align: "right" },
              ...(list.everyone ? ["Started by"] : []),
              "Started",
              "Finished",
            ]}
          />
          <tbody>
            {list.items.map((job) => (
              <tr key={job.id} className="border-b border-slate-200" data-testid="bulk-job-row">
                <td className="px-3 py-2">
                  <a href={`/bulk-jobs/${job.id}`} className="font-medium text-brand underline">
                    {inWords(BULK_VERB_WORDS, job.verb)}, {job.planned} {job.kind === "holds" ? "hold" : "case"}
                    {job.planned === 1 ? "" : "s"}
                  </a>
                </td>
                <td className="px-3 py-2">{BULK_JOB_STATE_WORDS[job.state]}</td>
                <td className="px-3 py-2 text-right tabular-nums">
                  {job.done} done, {job.skipped} skipped, {job.failed} failed of {job.planned}
                </td>
                {list.everyone ? <td className="px-3 py-2">{job.mine ? "you" : job.startedBy}</td> : null}
                <td className="whitespace-nowrap px-3 py-2">
                  <Time at={job.startedAt} />
                </td>
                <td className="whitespace-nowrap px-3 py-2">
                  <Time at={job.finishedAt} fallback={job.state === "running" ? "still running" : "—"} />
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
      <nav aria-label="Pages of bulk jobs" className="flex gap-4 text-sm">
        {later ? (
          <a href="/bulk-jobs" className="text-brand underline">
            Newest jobs
          </a>
        ) : null}
        {list.nextCursor ? (
          <a href={`/bulk-jobs?cursor=${list.nextCursor}`} rel="next" className="text-brand underline">
            Older jobs
          </a>
        ) : null}
      </nav>
    </section>
  );
}
