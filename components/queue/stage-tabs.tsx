import { STAGE_LABEL } from "@/components/ui/labels";
import { STAGES, type Stage } from "@/lib/domain/stages";
import type { ListCasesQuery } from "@/lib/validation/list-cases";
import { queueHref } from "@/lib/validation/queue-params";

/**
 * One tab per stage with its count of open cases (running totals, exact and live), keeping the
 * view's other filters. The counts are of every open case in the stage, whatever else is filtered:
 * the line under the table counts the view itself.
 */
export function StageTabs({ query, counts }: { query: ListCasesQuery; counts: Record<Stage, number> }) {
  const { cursor: _cursor, stage: current, ...rest } = query;
  const all = STAGES.reduce((sum, stage) => sum + counts[stage], 0);
  const tabs: { stage?: Stage; label: string; count: number }[] = [
    { label: "All stages", count: all },
    ...STAGES.map((stage) => ({ stage, label: STAGE_LABEL[stage].label, count: counts[stage] })),
  ];
  return (
    <nav aria-label="Stages" className="-mb-px mt-3 flex gap-1 overflow-x-auto border-b border-slate-300">
      {tabs.map((tab) => {
        const selected = tab.stage === current;
        return (
          <a
            key={tab.label}
            href={queueHref({ ...rest, stage: tab.stage })}
            aria-current={selected ? "page" : undefined}
            title={`${tab.count.toLocaleString("en-US")} open cases`}
            className={`shrink-0 whitespace-nowrap border-b-2 px-3 py-2 text-sm ${
              selected
                ? "border-brand font-semibold text-slate-900"
                : "border-transparent text-slate-700 hover:border-slate-400"
            }`}
          >
            {tab.label}{" "}
            <span
              className="ml-1 rounded bg-slate-200 px-1.5 text-xs tabular-nums text-slate-900"
              data-testid="stage-count"
            >
              {tab.count.toLocaleString("en-US")}
            </span>
          </a>
        );
      })}
    </nav>
  );
}
