import { trendWindowMinutes } from "./memory-trend";
import type { MinuteTable } from "./minutes";
import type { SoakCounters } from "./traffic";

const MAX_GROWTH_PERCENT = 10;

/**
 * Memory must stay flat: no process's fitted RSS line may rise by more than 10% over the last
 * 20 minutes (two thirds of a shorter run). The soak must also have done work, with page loads
 * failing no more than 1% of the time. Prints the summary; true when all of that holds.
 */
export function soakVerdict(
  table: MinuteTable,
  counters: SoakCounters,
  run: { minutes: number; totalMinutes: number },
): boolean {
  const window = trendWindowMinutes(run.minutes);
  const growth = table.growth(window);
  const totals = table.rows.reduce(
    (sum, row) => ({ parked: sum.parked + row.parked, finished: sum.finished + row.finished }),
    { parked: 0, finished: 0 },
  );
  console.log("");
  console.log(`${run.minutes} minutes (${run.totalMinutes.toFixed(1)} with setup)`);
  console.log(
    `cases parked ${totals.parked}, actions finished ${totals.finished}, pages served ${counters.pagesServed}`,
  );
  console.log(
    `page failures ${counters.pageFailures}, approvals ${counters.approvals}, failures accepted ${counters.failuresAccepted}, review failures ${counters.reviewFailures}, traffic batches ${counters.trafficBatches} (failed ${counters.trafficFailures})`,
  );
  console.log(`memory trend over the last ${window} minutes (limit +${MAX_GROWTH_PERCENT}%):`);
  for (const g of growth) {
    const flat = g.percent <= MAX_GROWTH_PERCENT;
    console.log(
      `  ${flat ? "ok  " : "FAIL"} ${g.name.padEnd(12)} ${g.percent >= 0 ? "+" : ""}${g.percent.toFixed(1)}% (${g.from.toFixed(1)} -> ${g.to.toFixed(1)} MiB)`,
    );
  }
  const flat = growth.every((g) => g.percent <= MAX_GROWTH_PERCENT);
  const busy = totals.parked > 0 && totals.finished > 0 && counters.pagesServed > 0;
  const pagesOk = counters.pageFailures <= counters.pagesServed / 100;
  if (!busy) console.log("FAIL: the soak did no work (nothing parked, finished or served)");
  if (!pagesOk) console.log("FAIL: more than 1% of page loads failed");
  const passed = flat && busy && pagesOk;
  console.log(passed ? "\nPASS: memory flat" : "\nFAIL");
  return passed;
}
