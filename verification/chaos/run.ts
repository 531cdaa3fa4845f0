import { randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import { integerOption } from "../shared/integer-option";
import { createWorkerTokens, Launcher } from "../shared/launcher";
import { seededRandom } from "../shared/random";
import { simulatorStats } from "../shared/simulator-client";
import { readRequestLog } from "../shared/simulator-requests";
import { chaosFigures } from "./figures";
import { Killer } from "./killer";
import { chaosPlan } from "./plan";
import { reportChaos } from "./report";
import { seedChaosActions } from "./seed";

/**
 * Crash and chaos run against real processes: worker loops (scripts/worker.ts) call the worker
 * route of the app server to work off ready recovery actions, while a killer SIGKILLs
 * random workers and the server and restarts PostgreSQL once. Exits non-zero when any
 * correctness figure is wrong.
 *   npm run verify:chaos -- [--actions 10000] [--workers 32] [--kills 64] [--server-kills 8] [--seed 20261129]
 *     [--timeout-minutes 60] [--running-seconds 180] [--report file.json]
 * `--running-seconds` is the longest a still-running job runs (the shortest is a third of it).
 * `--report` writes the verdict as one test in Vitest's JSON report shape, so CI's summary line
 * (.ci/summarize.mjs) counts the run as one passed or one failed test.
 */
const { values } = parseArgs({
  options: {
    actions: { type: "string", default: "10000" },
    workers: { type: "string", default: "32" },
    kills: { type: "string", default: "64" },
    "server-kills": { type: "string", default: "8" },
    seed: { type: "string", default: "20261129" },
    "timeout-minutes": { type: "string", default: "60" },
    "running-seconds": { type: "string", default: "180" },
    report: { type: "string" },
  },
});
const count = (name: keyof typeof values, min: number) => integerOption(values, name, min);
const total = count("actions", 1);
const workerCount = count("workers", 1);
const seed = count("seed", 0);
const timeoutMs = count("timeout-minutes", 1) * 60_000;
const runningMaxMs = count("running-seconds", 3) * 1000;
const random = seededRandom(seed);
const plan = chaosPlan(random, { workerKills: count("kills", 0), serverKills: count("server-kills", 0) });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const started = Date.now();
const runId = `${seed.toString(36)}${randomBytes(3).toString("hex")}`;
const run = await Launcher.open("chaos", 58432);
const { log, runDir, database, pool } = run;
let killer: Killer | undefined;
let passed = false;

async function openActions(): Promise<number | null> {
  try {
    const { rows } = await pool.query<{ open: number }>(
      "SELECT count(*)::int AS open FROM recovery_actions WHERE status IN ('ready', 'claimed')",
    );
    return rows[0]?.open ?? null;
  } catch {
    return null;
  }
}

/** Actions a killed server left claimed: only an expired lease's rescue can end them. */
async function claimedActions(): Promise<number> {
  const { rows } = await pool.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM recovery_actions WHERE status = 'claimed'",
  );
  return rows[0]?.n ?? 0;
}

try {
  const requestLog = path.join(runDir, "provider-requests.jsonl");
  const simulator = await run.startSimulator({ preferredPort: 4400, requestLog });
  const simulatorUrl = simulator.url;
  log(`database ${database.url.replace(/:[^:@/]+@/, ":***@")}, simulator ${simulatorUrl}, logs in ${runDir}`);

  const seedStarted = Date.now();
  const { seeded, tokens } = await run.withClient(8, async (db) => ({
    seeded: await seedChaosActions(
      db,
      { simulatorUrl, count: total, random, concurrency: 8, runId, stillRunningMs: [runningMaxMs / 3, runningMaxMs] },
      log,
    ),
    tokens: await createWorkerTokens(db, workerCount, "chaos-worker"),
  }));
  log(
    `${seeded.length} ready actions seeded through park + approve in ${((Date.now() - seedStarted) / 1000).toFixed(0)} s`,
  );

  const server = await run.startServer({
    preferredPort: 3400,
    env: {
      // Short leases so crashed claims come back within the run; the tick budget stays well inside.
      WORKER_LEASE_SECONDS: "30",
      WORKER_TICK_BUDGET_MS: "8000",
      WORKER_POLL_BASE_SECONDS: "5",
      WORKER_POLL_MAX_SECONDS: "20",
      WORKER_CONCURRENCY: "4",
    },
  });
  const appUrl = server.url;
  const workers = run.startWorkers({ appUrl, tokens, idPrefix: `chaos-${runId}`, intervalMs: 250, maxTasks: 4 });
  killer = new Killer(workers, server.process, database, claimedActions, random, log);
  log(`${workers.length} worker loops against ${appUrl}; ${plan.length} chaos events planned`);

  const workStarted = Date.now();
  let open: number | null = total;
  let lastReport = 0;
  let finishedAtRestart = 0;
  for (;;) {
    await sleep(1_000);
    open = (await openActions()) ?? open;
    if (open === 0) break;
    const progress = 1 - (open ?? total) / total;
    const event = plan[0];
    if (event && event.atProgress <= progress) {
      plan.shift();
      if (event.target === "postgres") finishedAtRestart = total - (open ?? total);
      await killer.strike(event);
    }
    killer.reviveUnexpectedExits();
    if (Date.now() - lastReport > 15_000) {
      lastReport = Date.now();
      const { worker, server: s, postgres } = killer.done;
      log(
        `${(progress * 100).toFixed(1)}% done, ${open} open; killed ${worker} workers, ${s} servers; pg restarts ${postgres}`,
      );
    }
    if (Date.now() - workStarted > timeoutMs) {
      log(`timed out with ${open} actions still open`);
      break;
    }
  }
  const workSeconds = (Date.now() - workStarted) / 1000;
  await killer.stopAll();
  const stats = await simulatorStats(simulatorUrl);
  await simulator.process.stop();
  const provider = await readRequestLog(requestLog);
  const figures = await chaosFigures(pool, seeded, { byJob: provider.byJob, createCalls: stats.creates.total });
  passed = reportChaos(figures, {
    seed,
    actions: total,
    workers: workerCount,
    plannedKills: { worker: count("kills", 0), server: count("server-kills", 0) },
    done: killer.done,
    claimedAtServerKills: killer.claimedAtServerKills,
    unexpectedExits: killer.unexpectedExits,
    workSeconds,
    totalSeconds: (Date.now() - started) / 1000,
    finishedAfterRestart: figures.executedToCompletion + figures.safelyReparked - finishedAtRestart,
    providerRequests: provider.totals,
  });
} finally {
  if (killer) await killer.stopAll();
  await run.close(passed);
  if (values.report) {
    const verdict = { numPassedTests: passed ? 1 : 0, numFailedTests: passed ? 0 : 1, numFailedTestSuites: 0 };
    await writeFile(values.report, `${JSON.stringify(verdict)}\n`);
  }
}
process.exit(passed ? 0 : 1);
