import type { OverviewStats } from "@/lib/services/overview/overview-stats";

/** Cases whose producer's notification was given up (decision 045), a link to their list. */
export function ProducerNotToldSummary({ stats }: { stats: Pick<OverviewStats, "producerNotTold"> }) {
  const count = stats.producerNotTold;
  return (
    <div
      data-testid="overview-producer-not-told"
      className={`rounded border p-3 ${count > 0 ? "border-amber-500 bg-amber-50" : "border-slate-300 bg-white"}`}
    >
      <p className="text-sm text-slate-700">Producer not told (notification given up)</p>
      <p className="text-xl font-semibold">{count}</p>
      {count > 0 ? (
        <a className="text-sm text-brand underline" href="/queue?flag=producer_not_told">
          Show in the queue
        </a>
      ) : null}
    </div>
  );
}
