import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { Principal } from "@/lib/domain/principal";

export type RaceTask =
  | { mode: "claim"; workerId: string; max: number }
  | { mode: "approve"; caseId: string; reviewer: Principal; action: string };

export type RaceResult =
  | { mode: "claim"; pid: number; actionIds: string[]; rounds: number }
  | { mode: "approve"; pid: number; actionId: string; created: boolean }
  | { mode: "error"; pid: number; code: string; message: string };

const here = path.dirname(fileURLToPath(import.meta.url));
const workerScript = path.join(here, "race-worker.ts");
const projectRoot = path.resolve(here, "../../..");

type Child = { process: ChildProcessWithoutNullStreams; lines: AsyncIterator<string>; stderr: string[] };

/**
 * N long-lived child processes, each with its own connection pool to `databaseUrl`. Tasks are
 * written to every child at once, after all of them have connected, so they really overlap.
 */
export class RacePool {
  private constructor(private readonly children: Child[]) {}

  static async start(size: number, databaseUrl: string): Promise<RacePool> {
    const children = Array.from({ length: size }, (): Child => {
      // Baseline-compiled WebAssembly only: each child compiles the ORM's query compiler once, and
      // sixteen optimising compiles at the same moment would dominate the run on a small machine.
      const child = spawn(process.execPath, ["--liftoff-only", "--import", "tsx", workerScript], {
        cwd: projectRoot,
        env: { ...process.env, DATABASE_URL: databaseUrl },
        stdio: ["pipe", "pipe", "pipe"],
      });
      const stderr: string[] = [];
      child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk.toString()));
      const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
      return { process: child, lines, stderr };
    });
    const pool = new RacePool(children);
    try {
      await Promise.all(children.map((child) => pool.expectLine(child, "READY")));
    } catch (error) {
      for (const child of children) child.process.kill("SIGKILL");
      throw error;
    }
    return pool;
  }

  get pids(): number[] {
    return this.children.map((child) => child.process.pid ?? -1);
  }

  /** Sends `tasks[i]` to child i (all writes before any answer is awaited) and returns the answers. */
  async run(tasks: RaceTask[]): Promise<RaceResult[]> {
    if (tasks.length !== this.children.length) throw new Error("one task per child");
    this.children.forEach((child, i) => {
      child.process.stdin.write(`${JSON.stringify(tasks[i])}\n`);
    });
    const answers = await Promise.all(this.children.map((child) => this.expectLine(child, "RESULT ")));
    return answers.map((line) => JSON.parse(line.slice("RESULT ".length)) as RaceResult);
  }

  async close(): Promise<void> {
    await Promise.all(
      this.children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.process.exitCode !== null) return resolve();
            const timer = setTimeout(() => child.process.kill("SIGKILL"), 5_000);
            child.process.once("exit", () => {
              clearTimeout(timer);
              resolve();
            });
            child.process.stdin.end();
          }),
      ),
    );
  }

  private async expectLine(child: Child, prefix: string): Promise<string> {
    for (;;) {
      const next = await child.lines.next();
      if (next.done) {
        throw new Error(`child ${child.process.pid} ended before "${prefix.trim()}": ${child.stderr.join("")}`);
      }
      if (next.value.startsWith(prefix)) return next.value;
    }
  }
}
