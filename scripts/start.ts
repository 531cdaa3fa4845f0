import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { createPrismaClient } from "../lib/db/client";
import { findFreePort } from "../lib/db/embedded";
import { migrate } from "../lib/db/migrate";
import { EnvError, parseEnv } from "../lib/env";
import { seedDemoUsers } from "../lib/services/seed-demo-users";
import { seedDemoCases } from "../prisma/seed/demo-cases";
import { serverNodeArgs } from "../server/node-args";
import { buildIsStale } from "./build-freshness";
import { demoWorkerToken } from "./demo-worker-token";
import { openLocalDatabase } from "./local-database";

const dev = process.argv.includes("--dev");
const nextBin = path.resolve("node_modules/next/dist/bin/next");
const log = (message: string) => console.log(`[start] ${message}`);

function loadConfig() {
  try {
    return parseEnv(process.env);
  } catch (error) {
    if (error instanceof EnvError) {
      console.error(`[start] ${error.message}`);
      process.exit(1);
    }
    throw error;
  }
}

/** Demo mode keeps one generated secret under DATA_DIR so sessions survive restarts. */
async function demoSecret(dataDir: string): Promise<string> {
  const file = path.join(dataDir, "auth-secret");
  const existing = await readFile(file, "utf8").catch(() => "");
  if (existing.trim().length >= 32) return existing.trim();
  const secret = randomBytes(32).toString("base64url");
  await mkdir(dataDir, { recursive: true });
  await writeFile(file, secret, { mode: 0o600 });
  return secret;
}

/** `node` with these arguments, in its own process group, so stopping it also stops what it forks. */
function run(nodeArgs: string[], childEnv: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, nodeArgs, { stdio: "inherit", env: childEnv, detached: true });
}

function waitForExit(child: ChildProcess): Promise<number> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once("exit", (code) => resolve(code ?? 1)));
}

const config = loadConfig();
const secret = config.AUTH_SECRET ?? (await demoSecret(config.DATA_DIR));
const database = await openLocalDatabase();
let children: ChildProcess[] = [];
let stopping = false;

async function stop(code: number): Promise<never> {
  if (!stopping) {
    stopping = true;
    for (const child of children) {
      if (child.exitCode === null && child.pid) {
        try {
          process.kill(-child.pid, "SIGTERM");
        } catch {}
      }
    }
    const killer = setTimeout(() => {
      for (const child of children) if (child.exitCode === null && child.pid) process.kill(-child.pid, "SIGKILL");
    }, 10_000);
    await Promise.all(children.map(waitForExit));
    clearTimeout(killer);
    await database.embedded?.stop();
    if (database.embedded) log("Embedded PostgreSQL stopped.");
  }
  process.exit(code);
}
process.on("SIGINT", () => void stop(0));
process.on("SIGTERM", () => void stop(0));

const useSimulator =
  config.demo && (process.env.PROVIDER_MODE ?? "simulator") === "simulator" && !process.env.SIMULATOR_URL;
const simulatorPort = useSimulator ? await findFreePort(Number(process.env.SIMULATOR_PORT ?? 4010)) : null;

const childEnv: NodeJS.ProcessEnv = {
  ...process.env,
  DATABASE_URL: database.url,
  AUTH_SECRET: secret,
  DEMO: config.demo ? "1" : "0",
  NEXTAUTH_URL: config.authUrl,
  PORT: String(config.PORT),
  NEXT_TELEMETRY_DISABLED: "1",
  ...(simulatorPort ? { SIMULATOR_URL: `http://127.0.0.1:${simulatorPort}` } : {}),
};

// The build needs no database, so it runs while migrations and demo data are prepared.
// Types are checked by `npm run typecheck` (and CI); the launcher's build skips Next's second pass.
const build =
  !dev && (await buildIsStale())
    ? run([nextBin, "build"], { ...childEnv, NODE_ENV: "production", SKIP_BUILD_TYPECHECK: "1" })
    : null;
if (build) {
  log("Building the app (first start or changed sources)…");
  children = [build];
}

let workerToken = process.env.WORKER_TOKEN;
try {
  const report = await migrate(database.ownerUrl, { appRole: database.appRole });
  for (const name of report.applied) log(`Applied migration ${name}`);
  if (config.demo) {
    const prisma = createPrismaClient(database.url, 1);
    if (await seedDemoUsers(prisma)) log("Demo users created (see README for the password).");
    if (await seedDemoCases(prisma)) log("Demo cases parked.");
    if (process.env.START_WORKER !== "0") workerToken ??= await demoWorkerToken(prisma, config.DATA_DIR);
    await prisma.$disconnect();
  }
} catch (error) {
  console.error(`[start] ${error instanceof Error ? error.message : String(error)}`);
  await stop(1);
}

if (build) {
  const code = await waitForExit(build);
  if (code !== 0 || stopping) await stop(code || 1);
}

const tsx = path.resolve("node_modules/tsx/dist/cli.mjs");
const server = run(serverNodeArgs({ dev }), { ...childEnv, NODE_ENV: dev ? "development" : "production" });
children = [server];
if (simulatorPort) {
  children.push(run([tsx, "scripts/simulator.ts"], { ...childEnv, SIMULATOR_PORT: String(simulatorPort) }));
  log(`Provider simulator: http://127.0.0.1:${simulatorPort}`);
}
if (workerToken && process.env.START_WORKER !== "0") {
  const appUrl = `http://localhost:${config.PORT}`;
  children.push(
    run([tsx, "scripts/worker.ts"], {
      ...childEnv,
      WORKER_TOKEN: workerToken,
      APP_URL: appUrl,
      WORKER_ID: "demo-worker-1",
    }),
  );
  log("Worker loop started.");
}
log(`Console: ${config.authUrl}${config.demo ? " (demo mode)" : ""}`);
void waitForExit(server).then((code) => {
  if (!stopping) void stop(code);
});
if (!existsSync(nextBin)) log("next is not installed: run npm install");
