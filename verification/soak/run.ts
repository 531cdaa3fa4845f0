import { randomBytes } from "node:crypto";
import { appendFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { createAccessToken } from "../../lib/services/access/create-access-token";
import { upsertUser } from "../../lib/services/admin/upsert-user";
import { integerOption } from "../shared/integer-option";
import { createWorkerTokens, Launcher } from "../shared/launcher";
import { sessionCookie } from "../shared/session-cookie";
import { MinuteTable } from "./minutes";
import { newCounters, pageLoop, reviewLoop, trafficLoop } from "./traffic";
import { soakVerdict } from "./verdict";

/**
 * Soak: demo traffic, a reviewer, worker loops and signed-in console page loads against the
 * app server for --minutes, throttled to stay light on the machine. Prints throughput and
 * the resident memory of every process per minute, and fails (exit 1) when a process's memory
 * trend over the last 20 minutes (two thirds of a shorter run) grows by more than 10%.
 *   npm run verify:soak -- --minutes 30 [--workers 2] [--orders-per-minute 10] [--pages-per-minute 30]
 */
const { values } = parseArgs({
  options: {
    minutes: { type: "string", default: "30" },
    workers: { type: "string", default: "2" },
    "orders-per-minute": { type: "string", default: "10" },
    "pages-per-minute": { type: "string", default: "30" },
  },
});
const count = (name: keyof typeof values, min: number) => integerOption(values, name, min);
const minutes = count("minutes", 3);
const workerCount = count("workers", 1);
const ordersPerMinute = count("orders-per-minute", 1);
const pagesPerMinute = count("pages-per-minute", 1);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const started = Date.now();
const run = await Launcher.open("soak", 58442);
const { log, runDir, pool } = run;
const trafficLog = path.join(runDir, "traffic.log");
const stopLoops = new AbortController();
let passed = false;

try {
  const simulator = await run.startSimulator({
    preferredPort: 4450,
    env: { SIMULATOR_QUEUED_MS: "1000", SIMULATOR_RUNNING_MS: "5000" },
  });
  const simulatorUrl = simulator.url;

  const { apiKey, user, tokens } = await run.withClient(2, async (db) => ({
    apiKey: (await createAccessToken(db, "cli", { kind: "api_key", name: "soak-shop" })).secret,
    user: await upsertUser(db, {
      email: "soak-reviewer@example.com",
      roles: ["operator", "reviewer", "finance"],
      password: randomBytes(18).toString("base64url"),
    }),
    tokens: await createWorkerTokens(db, workerCount, "soak-worker"),
  }));

  const server = await run.startServer({
    preferredPort: 3450,
    env: { WORKER_POLL_BASE_SECONDS: "5", WORKER_POLL_MAX_SECONDS: "30" },
  });
  const appUrl = server.url;
  const workers = run.startWorkers({ appUrl, tokens, idPrefix: "soak", intervalMs: 2_000, maxTasks: 5 });

  const cookie = await sessionCookie(run.authSecret, user);
  const counters = newCounters();
  const signal = stopLoops.signal;
  const someCaseId = async () =>
    (await pool.query<{ id: string }>("SELECT id FROM cases ORDER BY random() LIMIT 1")).rows[0]?.id ?? null;
  const loops = [
    trafficLoop({
      shop: { appUrl, simulatorUrl, apiKey, completionWaitMs: 30_000 },
      ordersPerMinute,
      counters,
      log: (line) => appendFileSync(trafficLog, `${new Date().toISOString()} ${line}\n`),
      signal,
    }),
    reviewLoop({ appUrl, cookie, counters, signal }),
    pageLoop({ appUrl, cookie, pagesPerMinute, counters, someCaseId, signal }),
  ];

  const table = new MinuteTable([server.process, simulator.process, ...workers]);
  log(
    `${minutes} minutes against ${appUrl}; ${workerCount} worker loops, ${ordersPerMinute} orders and ${pagesPerMinute} pages a minute; logs in ${runDir}`,
  );
  console.log(table.header());
  const soakStarted = Date.now();
  let pagesBefore = 0;
  for (let minute = 1; minute <= minutes; minute++) {
    const minuteStart = new Date(soakStarted + (minute - 1) * 60_000);
    const minuteEnd = new Date(soakStarted + minute * 60_000);
    while (Date.now() < minuteEnd.getTime()) {
      await table.sample();
      await sleep(Math.min(5_000, Math.max(0, minuteEnd.getTime() - Date.now())));
    }
    const { rows } = await pool.query<{ parked: number; finished: number }>(
      `SELECT (SELECT count(*)::int FROM cases WHERE opened_at >= $1 AND opened_at < $2) AS parked,
              (SELECT count(*)::int FROM recovery_actions WHERE finished_at >= $1 AND finished_at < $2) AS finished`,
      [minuteStart, minuteEnd],
    );
    const row = table.closeMinute({
      parked: rows[0]?.parked ?? 0,
      finished: rows[0]?.finished ?? 0,
      pages: counters.pagesServed - pagesBefore,
    });
    pagesBefore = counters.pagesServed;
    console.log(table.format(row));
  }
  stopLoops.abort();
  await Promise.race([Promise.all(loops), sleep(90_000)]);

  passed = soakVerdict(table, counters, { minutes, totalMinutes: (Date.now() - started) / 60_000 });
} finally {
  stopLoops.abort();
  await run.close(passed);
}
process.exit(passed ? 0 : 1);
