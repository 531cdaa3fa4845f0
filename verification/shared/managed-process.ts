import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, openSync } from "node:fs";

/**
 * One long-running child (a Node script), started in its own process group so that a kill reaches
 * everything it forked, with its output appended to a log file rather than piped through this
 * process. It can be killed and started again any number of times.
 */
export class ManagedProcess {
  private child: ChildProcess | undefined;
  private exit: Promise<void> = Promise.resolve();
  starts = 0;

  constructor(
    readonly name: string,
    private readonly args: string[],
    /** Asked again at every start (a restarted worker, for one, comes back under a new ID). */
    private readonly env: (start: number) => NodeJS.ProcessEnv,
    private readonly logFile: string,
  ) {}

  get pid(): number | undefined {
    return this.running ? this.child?.pid : undefined;
  }

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  start(): void {
    if (this.running) throw new Error(`${this.name} is already running`);
    const out = openSync(this.logFile, "a");
    const child = spawn(process.execPath, this.args, {
      env: this.env(this.starts + 1),
      detached: true,
      stdio: ["ignore", out, out],
    });
    closeSync(out);
    this.child = child;
    this.starts += 1;
    this.exit = new Promise((resolve) => child.once("exit", () => resolve()));
  }

  /** Signals the whole group; a group that is already gone is not an error. */
  signal(signal: NodeJS.Signals): void {
    const pid = this.child?.pid;
    if (!pid) return;
    try {
      process.kill(-pid, signal);
    } catch {}
  }

  /** SIGKILL, and wait until the operating system has reaped it. */
  async kill(): Promise<void> {
    this.signal("SIGKILL");
    await this.exit;
  }

  /** SIGTERM, then SIGKILL if it has not gone within `graceMs`. */
  async stop(graceMs = 10_000): Promise<void> {
    if (!this.running) return;
    this.signal("SIGTERM");
    const timer = setTimeout(() => this.signal("SIGKILL"), graceMs);
    await this.exit;
    clearTimeout(timer);
    // Children that outlived their leader (e.g. a forked server) go with the group.
    this.signal("SIGKILL");
  }
}
