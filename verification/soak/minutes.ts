import type { ManagedProcess } from "../shared/managed-process";
import { groupRssMiB } from "../shared/rss";
import { trendGrowthPercent } from "./memory-trend";

export type MinuteRow = { minute: number; parked: number; finished: number; pages: number; rssMiB: number[] };

/**
 * Resident memory of each process, sampled every few seconds and averaged per minute (a single
 * reading lands before or after a garbage collection by chance), next to the minute's throughput.
 */
export class MinuteTable {
  readonly rows: MinuteRow[] = [];
  private samples: number[][];

  constructor(readonly processes: ManagedProcess[]) {
    this.samples = processes.map(() => []);
  }

  async sample(): Promise<void> {
    await Promise.all(
      this.processes.map(async (proc, i) => {
        const rss = proc.pid ? await groupRssMiB(proc.pid) : null;
        if (rss !== null) this.samples[i]?.push(rss);
      }),
    );
  }

  closeMinute(throughput: Omit<MinuteRow, "minute" | "rssMiB">): MinuteRow {
    const mean = (values: number[]) => (values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0);
    const row = { minute: this.rows.length + 1, ...throughput, rssMiB: this.samples.map(mean) };
    this.rows.push(row);
    this.samples = this.processes.map(() => []);
    return row;
  }

  header(): string {
    const names = this.processes.map((p) => `${p.name} MiB`);
    return `| minute | cases parked | actions finished | pages served | ${names.join(" | ")} |\n|${" --- |".repeat(4 + names.length)}`;
  }

  format(row: MinuteRow): string {
    const rss = row.rssMiB.map((mib) => mib.toFixed(1));
    return `| ${row.minute} | ${row.parked} | ${row.finished} | ${row.pages} | ${rss.join(" | ")} |`;
  }

  /** Per process: growth of its fitted line over the last `windowMinutes` rows. */
  growth(windowMinutes: number): { name: string; percent: number; from: number; to: number }[] {
    const window = this.rows.slice(-windowMinutes);
    return this.processes.map((proc, i) => {
      const series = window.map((row) => row.rssMiB[i] ?? 0);
      return { name: proc.name, percent: trendGrowthPercent(series), from: series[0] ?? 0, to: series.at(-1) ?? 0 };
    });
  }
}
