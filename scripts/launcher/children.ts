import { type ChildProcess, spawn } from "node:child_process";

export type ChildExit = { name: string; code: number | null; signal: NodeJS.Signals | null };

type Entry = { name: string; process: ChildProcess; oneShot: boolean };

/**
 * The launcher's child processes. Each runs in its own process group, so stopping one also stops
 * what it forks (next-server), and a terminal's Ctrl-C reaches the launcher alone, which then
 * stops them in order. A long-running child that exits while the launcher is not stopping is
 * reported at once (fail fast), never left for the others to discover.
 */
export class Children {
  private readonly entries: Entry[] = [];
  private stopping = false;

  constructor(private readonly onUnexpectedExit: (exit: ChildExit) => void) {
    // Last resort if the launcher itself dies of an error: no child outlives it.
    process.on("exit", () => this.signalAll("SIGTERM"));
  }

  /**
   * `node` with these arguments. `oneShot` children (the build) are expected to end; `ipc` opens a
   * channel for a child that reports back (the simulator's bound address).
   */
  spawn(
    name: string,
    nodeArgs: string[],
    env: NodeJS.ProcessEnv,
    options: { oneShot?: boolean; ipc?: boolean } = {},
  ): ChildProcess {
    const child = spawn(process.execPath, nodeArgs, {
      stdio: options.ipc ? ["inherit", "inherit", "inherit", "ipc"] : "inherit",
      env,
      detached: true,
    });
    const entry = { name, process: child, oneShot: options.oneShot ?? false };
    this.entries.push(entry);
    child.once("exit", (code, signal) => {
      if (!this.stopping && !entry.oneShot) this.onUnexpectedExit({ name, code, signal });
    });
    return child;
  }

  get isStopping(): boolean {
    return this.stopping;
  }

  /** SIGTERM to every child's group, SIGKILL to those still there after `graceMs`; resolves when all are gone. */
  async stopAll(graceMs = 10_000): Promise<void> {
    this.stopping = true;
    this.signalAll("SIGTERM");
    const killer = setTimeout(() => this.signalAll("SIGKILL"), graceMs);
    await Promise.all(this.entries.map((entry) => exited(entry.process)));
    clearTimeout(killer);
  }

  private signalAll(signal: NodeJS.Signals): void {
    for (const { process: child } of this.entries) {
      if (child.exitCode !== null || child.signalCode !== null || !child.pid) continue;
      try {
        process.kill(-child.pid, signal);
      } catch {}
    }
  }
}

/** Resolves with the exit code (1 when ended by a signal). */
export function exited(child: ChildProcess): Promise<number> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  if (child.signalCode !== null) return Promise.resolve(1);
  return new Promise((resolve) => child.once("exit", (code) => resolve(code ?? 1)));
}
