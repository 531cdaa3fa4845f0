/**
 * Growth of a series over a window, as a percentage of where its least-squares line starts:
 * the line's rise across the window divided by its value at the window's first point. A fitted
 * line, not first-versus-last, so one garbage collection at either end cannot decide the verdict.
 */
export function trendGrowthPercent(series: number[]): number {
  const n = series.length;
  if (n < 2) return 0;
  const meanX = (n - 1) / 2;
  const meanY = series.reduce((sum, y) => sum + y, 0) / n;
  let num = 0;
  let den = 0;
  series.forEach((y, x) => {
    num += (x - meanX) * (y - meanY);
    den += (x - meanX) ** 2;
  });
  const slope = num / den;
  const start = meanY - slope * meanX;
  return start > 0 ? ((slope * (n - 1)) / start) * 100 : 0;
}

/** The minutes the verdict looks at: the last 20, or the last two thirds of a shorter run. */
export function trendWindowMinutes(runMinutes: number): number {
  return runMinutes >= 30 ? 20 : Math.max(2, Math.ceil((runMinutes * 2) / 3));
}
