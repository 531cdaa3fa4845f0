import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { createPrismaClient } from "../lib/db/client";
import { migrate } from "../lib/db/migrate";
import { EnvError, parseEnv } from "../lib/env";
import { demoCredentialsRefusal } from "../lib/services/admin/demo-credentials";
import { seedDemoUsers } from "../lib/services/admin/seed-demo-users";
import { demoCaseJobs, seedDemoCases } from "../prisma/seed/demo-cases";
import { seedDemoJobs } from "../prisma/seed/demo-jobs";
import { serverNodeArgs } from "../server/node-args";
import { FAL_JWKS_PATH } from "../verification/simulator/server";
import { buildIsStale } from "./build-freshness";
import { demoWorkerToken } from "./demo-worker-token";
import { Children, exited } from "./launcher/children";
import { isLauncherCore, relayToLauncherCore } from "./launcher/detach";
import { stopOnSignals } from "./launcher/signals";
import { startSimulatorChild } from "./launcher/simulator-child";
import { localUrl } from "./launcher/urls";
import { openLocalDatabase } from "./local-database";

if (!isLauncherCore()) await relayToLauncherCore();

const dev = process.argv.includes("--dev");
const nextBin = path.resolve("node_modules/next/dist/bin/next");
const tsx = path.resolve("node_modules/tsx/dist/cli.mjs");
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

const config = loadConfig();
const secret = config.AUTH_SECRET ?? (await demoSecret(config.DATA_DIR));
const database = await openLocalDatabase();

// Any child that ends on its own (server, simulator, worker) ends the whole run: nothing half-up.
const children = new Children(({ name, code, signal }) => {
  console.error(`[start] the ${name} exited (${signal ?? `code ${code}`}); stopping everything`);
  void stop(code || 1);
});
let stopping = false;
let stopped: Promise<never> | undefined;

/**
 * Children first (they may still be writing), then the database, then this process. A second
 * signal or failure while stopping waits for the same stop: exiting early would let the exit
 * hooks stop PostgreSQL under children that are still draining.
 */
function stop(code: number): Promise<never> {
  stopping = true;
  stopped ??= (async () => {
    await children.stopAll();
    await database.embedded?.stop();
    if (database.embedded) log("Embedded PostgreSQL stopped.");
    return process.exit(code);
  })();
  return stopped;
}
stopOnSignals(() => void stop(0));
// The relay that started this process is gone (killed outright): nobody is left to stop us later.
process.once("disconnect", () => void stop(1));

async function orStop<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    console.error(`[start] ${error instanceof Error ? error.message : String(error)}`);
    return stop(1);
  }
}

const useSimulator = config.demo && config.providerMode === "simulator" && !config.SIMULATOR_URL;

const childEnv: NodeJS.ProcessEnv = {
  ...process.env,
  DATABASE_URL: database.url,
  AUTH_SECRET: secret,
  DEMO: config.demo ? "1" : "0",
  NEXTAUTH_URL: config.authUrl,
  PORT: String(config.PORT),
  HOST: config.HOST,
  NEXT_TELEMETRY_DISABLED: "1",
  // The launcher's output is for the person who ran it: its children log plain lines unless told otherwise.
  LOG_FORMAT: process.env.LOG_FORMAT ?? "plain",
};

// The build needs no database, so it runs while migrations and demo data are prepared.
// Types are checked by `npm run typecheck` (and CI); the launcher's build skips Next's second pass.
const build =
  !dev && (await buildIsStale())
    ? children.spawn(
        "build",
        [nextBin, "build"],
        { ...childEnv, NODE_ENV: "production", SKIP_BUILD_TYPECHECK: "1" },
        {
          oneShot: true,
        },
      )
    : null;
if (build) log("Building the app (first start or changed sources)…");

let workerToken = process.env.WORKER_TOKEN;
try {
  const report = await migrate(database.ownerUrl, { appRole: database.appRole });
  for (const name of report.applied) log(`Applied migration ${name}`);
  const prisma = createPrismaClient(database.url, 1);
  try {
    if (config.demo) {
      if (await seedDemoUsers(prisma)) log("Demo users created (see README for the password).");
      if (await seedDemoCases(prisma)) log("Demo cases parked.");
      if (process.env.START_WORKER !== "0") workerToken ??= await demoWorkerToken(prisma, config.DATA_DIR);
    } else {
      // The server refuses this too (server/production-check.ts); saying it here spares the build wait.
      const refusal = await demoCredentialsRefusal(prisma);
      if (refusal) throw new Error(refusal);
    }
  } finally {
    await prisma.$disconnect();
  }
} catch (error) {
  console.error(`[start] ${error instanceof Error ? error.message : String(error)}`);
  await stop(1);
}

if (build) {
  const code = await exited(build);
  if (code !== 0 || stopping) await stop(code || 1);
}

// The simulator binds its port itself and reports it; only then do the server and worker learn it.
if (useSimulator) {
  // The simulator signs its webhooks as the providers do; the app verifies them with these, as it would theirs.
  const webhookSecret = process.env.REPLICATE_WEBHOOK_SECRET ?? `whsec_${randomBytes(32).toString("base64")}`;
  const simulatorUrl = await orStop(
    startSimulatorChild(children, {
      ...childEnv,
      SIMULATOR_PORT: process.env.SIMULATOR_PORT ?? "4010",
      SIMULATOR_REPLICATE_WEBHOOK_SECRET: webhookSecret,
    }),
  );
  childEnv.SIMULATOR_URL = simulatorUrl;
  childEnv.REPLICATE_WEBHOOK_SECRET = webhookSecret;
  childEnv.FAL_JWKS_URL ??= `${simulatorUrl}${FAL_JWKS_PATH}`;
  log(`Provider simulator: ${simulatorUrl}`);
  if (config.demo) {
    const seeded = await orStop(seedDemoJobs(simulatorUrl, demoCaseJobs()));
    log(`The simulator knows the demo cases' ${seeded} provider jobs (one is unknown to it on purpose).`);
  }
}

children.spawn("server", serverNodeArgs({ dev }), { ...childEnv, NODE_ENV: dev ? "development" : "production" });
if (workerToken && process.env.START_WORKER !== "0") {
  children.spawn("worker", [tsx, "scripts/worker.ts"], {
    ...childEnv,
    WORKER_TOKEN: workerToken,
    APP_URL: localUrl(config.HOST, config.PORT),
    WORKER_ID: "demo-worker-1",
  });
  log("Worker loop started.");
}
log(`Console: ${config.authUrl}${config.demo ? " (demo mode)" : ""}`);
if (!existsSync(nextBin)) log("next is not installed: run npm install");
