import { randomBytes } from "node:crypto";
import { appendFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { createPrismaClient } from "../lib/db/client";
import { findFreePort } from "../lib/db/embedded";
import { createAccessToken } from "../lib/services/create-access-token";
import { upsertUser } from "../lib/services/upsert-user";
import { nextServer, simulatorProcess, workerLoops } from "./verify/app-processes";
import { ensureAppBuild } from "./verify/build";
import type { ManagedProcess } from "./verify/managed-process";
import { sessionCookie } from "./verify/session-cookie";
import { MinuteTable } from "./verify/soak-minutes";
import { newCounters, pageLoop, reviewLoop, trafficLoop } from "./verify/soak-traffic";
import { soakVerdict } from "./verify/soak-verdict";
import { ThrowawayDatabase } from "./verify/throwaway-database";
import { waitForHttp } from "./verify/wait-for-http";

/**
 * Soak: demo traffic, a reviewer, worker loops and signed-in console page loads against a
 * `next start` server for --minutes, throttled to stay light on the machine. Prints throughput and
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
const count = (name: keyof typeof values, min: number) => {
  const value = Number(values[name]);
  if (!Number.isInteger(value) || value < min) throw new Error(`--${name} must be an integer of at least ${min}`);
  return value;
};
const minutes = count("minutes", 3);
const workerCount = count("workers", 1);
const ordersPerMinute = count("orders-per-minute", 1);
const pagesPerMinute = count("pages-per-minute", 1);

const log = (line: string) => console.log(`[soak] ${new Date().toISOString().slice(11, 19)} ${line}`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const started = Date.now();
const runDir = await mkdtemp(path.join(os.tmpdir(), "verify-soak-"));
const trafficLog = path.join(runDir, "traffic.log");
const buildEnv = await ensureAppBuild("verify-soak", log);
const database = await ThrowawayDatabase.create("verify_soak", 58442);
const pool = new pg.Pool({ connectionString: database.url, max: 2 });
pool.on("error", () => {});
const owned: ManagedProcess[] = [];
const stopLoops = new AbortController();
let passed = false;

try {
  const simulatorPort = await findFreePort(4450);
  const simulatorUrl = `http://127.0.0.1:${simulatorPort}`;
  const simulator = simulatorProcess({
    port: simulatorPort,
    logFile: path.join(runDir, "simulator.log"),
    env: { SIMULATOR_QUEUED_MS: "1000", SIMULATOR_RUNNING_MS: "5000" },
  });
  owned.push(simulator);
  simulator.start();
  await waitForHttp(`${simulatorUrl}/__admin/stats`, 60_000);

  const db = createPrismaClient(database.url, 2);
  const apiKey = (await createAccessToken(db, "cli", { kind: "api_key", name: "soak-shop" })).secret;
  const user = await upsertUser(db, {
    email: "soak-reviewer@example.com",
    roles: ["operator", "reviewer", "finance"],
    password: randomBytes(18).toString("base64url"),
  });
  const tokens: string[] = [];
  for (let i = 0; i < workerCount; i++) {
    tokens.push((await createAccessToken(db, "cli", { kind: "worker", name: `soak-worker-${i + 1}` })).secret);
  }
  await db.$disconnect();

  const secret = randomBytes(32).toString("base64url");
  const appPort = await findFreePort(3450);
  const appUrl = `http://127.0.0.1:${appPort}`;
  const server = nextServer({
    port: appPort,
    logFile: path.join(runDir, "next.log"),
    env: {
      ...buildEnv,
      DATABASE_URL: database.url,
      AUTH_SECRET: secret,
      DEMO: "0",
      NEXTAUTH_URL: appUrl,
      PROVIDER_MODE: "simulator",
      SIMULATOR_URL: simulatorUrl,
      DATA_DIR: path.join(runDir, "data"),
      ASSET_DIR: path.join(runDir, "assets"),
      WORKER_POLL_BASE_SECONDS: "5",
      WORKER_POLL_MAX_SECONDS: "30",
    },
  });
  owned.push(server);
  server.start();
  await waitForHttp(`${appUrl}/sign-in`, 120_000, (status) => status === 200);
  const workers = workerLoops({
    appUrl,
    tokens,
    idPrefix: "soak",
    intervalMs: 2_000,
    maxTasks: 5,
    logFile: path.join(runDir, "workers.log"),
  });
  owned.push(...workers);
  for (const worker of workers) worker.start();

  const cookie = await sessionCookie(secret, user);
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

  const table = new MinuteTable([server, simulator, ...workers]);
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
  for (const proc of owned.reverse()) await proc.stop();
  await pool.end().catch(() => {});
  await database.remove();
  if (passed) await rm(runDir, { recursive: true, force: true });
  else log(`logs kept in ${runDir}`);
}
process.exit(passed ? 0 : 1);
