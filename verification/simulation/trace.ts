import { createHash } from "node:crypto";

const PER_OPERATION = 40;
const GLOBAL = 200;

/**
 * The logical trace: who did what to which operation and what came of it, in schedule order.
 * Lines never carry database IDs, job IDs or wall-clock times, so two runs of one seed produce the
 * same lines and the same digest. The last lines per operation are kept for failure reports.
 */
export class Trace {
  private readonly hash = createHash("sha256");
  private readonly byOperation = new Map<number, string[]>();
  private readonly recent: string[] = [];
  steps = 0;

  /** `sink` receives every line (e.g. to write a full trace to a file). */
  constructor(private readonly sink?: (line: string) => void) {}

  record(operation: number | null, line: string): void {
    this.steps += 1;
    const entry = `${this.steps} ${operation === null ? "-" : `op${operation}`} ${line}`;
    this.hash.update(entry);
    this.hash.update("\n");
    this.sink?.(entry);
    this.recent.push(entry);
    if (this.recent.length > GLOBAL) this.recent.shift();
    if (operation === null) return;
    const lines = this.byOperation.get(operation) ?? [];
    lines.push(entry);
    if (lines.length > PER_OPERATION) lines.shift();
    this.byOperation.set(operation, lines);
  }

  digest(): string {
    return this.hash.copy().digest("hex");
  }

  lastFor(operation: number, count = 25): string[] {
    return (this.byOperation.get(operation) ?? []).slice(-count);
  }

  lastGlobal(count = 25): string[] {
    return this.recent.slice(-count);
  }
}
