/** One line of the benchmark table: a figure, the baseline it is read against, and their ratio. */
export type BenchRow = {
  part: string;
  metric: string;
  value: number;
  unit: string;
  /** What `value` is compared with (e.g. "raw SQL", "graphile-worker 0.17.3"); omitted for plain readings. */
  baseline?: { label: string; value: number };
  /** "higher" when a bigger value is better (throughput), "lower" for times and sizes. */
  better: "higher" | "lower";
  /** The target, as text (e.g. ">= 0.9x raw", "< 50 ms"); read, never asserted. */
  target?: string;
};

/** A correctness check inside a benchmark; any failed check makes `npm run bench` exit non-zero. */
export type BenchCheck = { part: string; name: string; ok: boolean; detail: string };

export type BenchResult = { rows: BenchRow[]; checks: BenchCheck[] };

export type BenchContext = {
  /** Admin URL of the benchmark's PostgreSQL server (database "postgres"). */
  serverUrl: string;
  /** A new database with every migration applied; returns its URL. */
  createDatabase: (name: string) => Promise<string>;
  log: (message: string) => void;
};

export type BenchPart = { name: string; run: (ctx: BenchContext) => Promise<BenchResult> };

/** value / baseline, oriented so that > 1 means the product did better. */
export function ratioOf(row: BenchRow): number | undefined {
  if (!row.baseline || row.baseline.value === 0 || row.value === 0) return undefined;
  return row.better === "higher" ? row.value / row.baseline.value : row.baseline.value / row.value;
}
