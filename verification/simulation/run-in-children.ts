import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { InvoiceFigure } from "./invoices";
import type { Figure } from "./world";

export type ChildRun = { url: string; seed: number; jobs: number };
export type ChildResult = {
  seed: number;
  jobs: number;
  digest: string;
  figures: Record<Figure, number>;
  /** The invoice figures that wait for the reconciliation of unexplained charges (./invoices.ts). */
  invoiceFigures: Record<InvoiceFigure, number>;
  passed: boolean;
  wallMs: number;
  report: string[];
  /** What happened, by kind (the report's counters). */
  counters: [string, number][];
};

const here = path.dirname(fileURLToPath(import.meta.url));
const projectRoot = path.resolve(here, "../..");

function runOne(run: ChildRun): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    // Baseline-compiled WebAssembly only: the ORM's query compiler is compiled once per process.
    const child = spawn(process.execPath, ["--liftoff-only", "--import", "tsx", path.join(here, "child-run.ts")], {
      cwd: projectRoot,
      env: { ...process.env, SIM_DATABASE_URL: run.url, SIM_SEED: String(run.seed), SIM_JOBS: String(run.jobs) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.once("error", reject);
    child.once("exit", (code) => {
      const line = stdout.split("\n").find((l) => l.startsWith("RESULT "));
      if (code === 0 && line) return resolve(JSON.parse(line.slice("RESULT ".length)) as ChildResult);
      reject(new Error(`seed ${run.seed} exited with ${code}: ${stderr.slice(-4000)}`));
    });
  });
}

/** Runs each simulation in its own process, all at once (each on its own database). */
export function runInChildren(runs: ChildRun[]): Promise<ChildResult[]> {
  return Promise.all(runs.map(runOne));
}
