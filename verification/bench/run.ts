import { parseArgs } from "node:util";
import { writePerformanceDoc } from "./lib/doc";
import { openBenchServer } from "./lib/server";
import { renderTable } from "./lib/table";
import type { BenchCheck, BenchPart, BenchRow } from "./lib/types";

/**
 * npm run bench [-- --only claim-finish,drain] [--no-write]
 * Runs every part against one throwaway PostgreSQL, prints one table (figure, baseline, ratio,
 * target) and exits non-zero only when a correctness check inside a part failed: speed is read,
 * never asserted.
 */
const PARTS = [
  "claim-finish",
  "drain",
  "bulk-approve",
  "ingest",
  "producer-seam",
  "permit-scale",
  "console-scale",
  "footprint",
  "audit-verify",
] as const;

const { values } = parseArgs({
  options: { only: { type: "string" }, "no-write": { type: "boolean", default: false } },
});
const wanted = values.only ? values.only.split(",").map((name) => name.trim()) : [...PARTS];
const unknown = wanted.filter((name) => !(PARTS as readonly string[]).includes(name));
if (unknown.length > 0) {
  console.error(`unknown part(s): ${unknown.join(", ")}; parts are ${PARTS.join(", ")}`);
  process.exit(2);
}

const started = Date.now();
const log = (message: string) => console.error(`[bench ${((Date.now() - started) / 1000).toFixed(0)}s] ${message}`);
const { ctx, close } = await openBenchServer(log);
const rows: BenchRow[] = [];
const checks: BenchCheck[] = [];
try {
  for (const name of wanted) {
    const part = (await import(`./${name}.ts`)).default as BenchPart;
    log(`part ${name}: start`);
    const result = await part.run(ctx);
    rows.push(...result.rows);
    checks.push(...result.checks);
    log(`part ${name}: done`);
  }
} finally {
  await close();
}

const table = renderTable(rows, checks);
console.log(table);
const failed = checks.filter((check) => !check.ok);
const command = `npm run bench${values.only ? ` -- --only ${values.only}` : ""}`;
if (!values["no-write"] && failed.length === 0)
  await writePerformanceDoc({ table, command, seconds: (Date.now() - started) / 1000 });
console.log(`${checks.length - failed.length} checks passed, ${failed.length} failed`);
process.exit(failed.length > 0 ? 1 : 0);
