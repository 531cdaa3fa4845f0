import { monitorEventLoopDelay } from "node:perf_hooks";

/**
 * Measures how late this process's timers run while a timed step happens, so an upper bound on a
 * duration can add what the machine's load cost instead of betting that the machine is idle
 * (a busy two-core machine delays every timer). `stop()` gives the worst delay seen, in ms.
 */
export function measureLoopLag(): { stop(): number } {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  return {
    stop: () => {
      histogram.disable();
      return histogram.max / 1e6;
    },
  };
}
