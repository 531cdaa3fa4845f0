// One seeded simulation in its own OS process, on the database in SIM_DATABASE_URL; prints one
// RESULT line (JSON). Started by run-in-children.ts so that several seeds run side by side.
import { createPrismaClient } from "@/lib/db/client";
import { passed, runSimulation } from "./engine";
import { report } from "./report";

const url = process.env.SIM_DATABASE_URL;
const seed = Number(process.env.SIM_SEED);
const jobs = Number(process.env.SIM_JOBS);
if (!url || !Number.isInteger(seed) || !Number.isInteger(jobs)) throw new Error("SIM_DATABASE_URL, SIM_SEED, SIM_JOBS");

const db = createPrismaClient(url, 4);
try {
  const result = await runSimulation({ db, url, seed, jobs });
  const summary = {
    seed,
    jobs,
    digest: result.digest,
    figures: result.figures,
    invoiceFigures: result.invoiceFigures,
    passed: passed(result),
    wallMs: result.wallMs,
    report: report(result),
    counters: result.counters,
  };
  process.stdout.write(`RESULT ${JSON.stringify(summary)}\n`);
} finally {
  await db.$disconnect();
}
process.exit(0);
