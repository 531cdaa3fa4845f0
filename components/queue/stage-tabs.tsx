import { STAGE_LABEL } from "@/components/ui/labels";
import { STAGES, type Stage } from "@/lib/domain/stages";
import type { ViewCount } from "@/lib/services/case/count-cases";
import type { ListCasesQuery } from "@/lib/validation/list-cases";
import { queueHref } from "@/lib/validation/queue-params";

const CAP_WORDS = (count: number) => `${count.toLocaleString("en-US")}+`;

/** The sum of the stages' counts; unknown when one is, "more than" when one is past the cap. */
function allStages(counts: Record<Stage, ViewCount>): ViewCount {
  let count = 0;
  let more = false;
  for (const stage of STAGES) {
    const one = counts[stage];
    if (!one) return null;
    count += one.count;
    more ||= one.more;
  }
  return { count, more };
}

/**
 * One tab per stage with its count of the view's cases, keeping the view's other filters: the
 * counts follow the filters (decision 063). `counts` absent: still being counted; a count of
 * `null` could not be made within the count's budget and shows none.
 */
export function StageTabs({
  query,
  counts,
  filtered,
}: {
  query: ListCasesQuery;
  counts?: Record<Stage, ViewCount>;
  filtered: boolean;
}) {
  const { cursor: _cursor, stage: current, ...rest } = query;
  const tabs: { stage?: Stage; label: string; count: ViewCount | undefined }[] = [
    { label: "All stages", count: counts && allStages(counts) },
    ...STAGES.map((stage) => ({ stage, label: STAGE_LABEL[stage].label, count: counts?.[stage] })),
  ];
  const what = filtered ? "cases in this view" : "open cases";
  return (
    <nav aria-label="Stages" className="-mb-px mt-2 flex gap-1 overflow-x-auto border-b border-slate-300">
      {tabs.map((tab) => {
        const selected = tab.stage === current;
        const shown = tab.count
          ? tab.count.more
            ? CAP_WORDS(tab.count.count)
            : tab.count.count.toLocaleString("en-US")
          : null;
        return (
          <a
            key={tab.label}
            href={queueHref({ ...rest, stage: tab.stage })}
            aria-current={selected ? "page" : undefined}
            title={shown ? `${shown} ${what}` : tab.count === null ? `Too many ${what} to count quickly` : undefined}
            className={`shrink-0 whitespace-nowrap border-b-2 px-3 py-1.5 text-sm ${
              selected
                ? "border-brand font-semibold text-slate-900"
                : "border-transparent text-slate-700 hover:border-slate-400"
            }`}
          >
            {tab.label}{" "}
            {shown ? (
              <span
                className="ml-1 rounded bg-slate-200 px-1.5 text-xs tabular-nums text-slate-900"
                data-testid="stage-count"
              >
                {shown}
              </span>
            ) : null}
          </a>
        );
      })}
    </nav>
  );
}
