import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { createPrismaClient } from "../../../lib/db/client";
import { findFreePort } from "../../../lib/db/embedded";
import type { Role } from "../../../lib/domain/roles";
import { createAccessToken } from "../../../lib/services/access/create-access-token";
import { buildIsStale } from "../../../scripts/build-freshness";
import { serverNodeArgs } from "../../../server/node-args";
import { sessionCookie as mintSessionCookie } from "../../shared/session-cookie";
import type { BenchContext } from "./types";

/**
 * One production app server (server/main.ts over a production build) for the HTTP parts of the
 * benchmark (ingest, console, footprint), started once on its own database and kept until the
 * footprint part has measured it, so the memory figure is that of a server that has served the
 * other runs.
 */
export type AppServer = {
  url: string;
  databaseUrl: string;
  authSecret: string;
  /** The HTTP entry's process (server/main.ts: Next.js and the direct API routes). */
  pid: number;
  /** Resident memory of the server's whole process tree, in bytes. */
  rss: () => Promise<number>;
  stop: () => Promise<void>;
};

/** The bench's build lives under .data (ignored by git, lint and typecheck), away from `npm start`'s .next. */
export const BENCH_DIST_DIR = ".data/bench/next";
const BENCH_TSCONFIG = ".data/bench/tsconfig.json";
const nextBin = path.resolve("node_modules/next/dist/bin/next");

let current: Promise<AppServer> | null = null;
let child: ChildProcess | null = null;
const served = new Set<string>();

// However the run ends (finished, failed or interrupted), the server's process group goes with it.
function killServer() {
  if (child?.pid && child.exitCode === null) {
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {}
  }
}
process.on("exit", killServer);
for (const [signal, code] of [
  ["SIGINT", 130],
  ["SIGTERM", 143],
] as const) {
  process.on(signal, () => {
    killServer();
    // Nobody else listening means nobody else will end the process: end it as the signal would.
    if (process.listenerCount(signal) === 1) process.exit(code);
  });
}

function waitForExit(proc: ChildProcess): Promise<number> {
  if (proc.exitCode !== null) return Promise.resolve(proc.exitCode);
  return new Promise((resolve) => proc.once("exit", (code) => resolve(code ?? 1)));
}

async function isStale(): Promise<boolean> {
  const saved = process.env.NEXT_DIST_DIR;
  process.env.NEXT_DIST_DIR = BENCH_DIST_DIR;
  try {
    return await buildIsStale();
  } finally {
    if (saved === undefined) delete process.env.NEXT_DIST_DIR;
    else process.env.NEXT_DIST_DIR = saved;
  }
}

/** `next build` into the bench's own directory when it is missing or older than a source file. */
export async function ensureBuild(log: (message: string) => void): Promise<void> {
  if (!(await isStale())) return;
  const started = Date.now();
  log(`building the app into ${BENCH_DIST_DIR} (missing or stale)…`);
  await mkdir(path.dirname(BENCH_TSCONFIG), { recursive: true });
  // Its own tsconfig, so Next never rewrites the project's when it meets a new distDir.
  await writeFile(BENCH_TSCONFIG, `${JSON.stringify({ extends: "../../tsconfig.json" }, null, 2)}\n`);
  const output: string[] = [];
  const build = spawn(process.execPath, [nextBin, "build"], {
    env: {
      ...process.env,
      NODE_ENV: "production",
      NEXT_DIST_DIR: BENCH_DIST_DIR,
      NEXT_TSCONFIG: BENCH_TSCONFIG,
      SKIP_BUILD_TYPECHECK: "1",
      NEXT_TELEMETRY_DISABLED: "1",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  build.stdout?.on("data", (chunk: Buffer) => output.push(chunk.toString()));
  build.stderr?.on("data", (chunk: Buffer) => output.push(chunk.toString()));
  const code = await waitForExit(build);
  if (code !== 0) throw new Error(`next build failed (${code}):\n${output.join("").slice(-4000)}`);
  log(`build done in ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

/** Resident set size of a process and all its descendants (Linux /proc). */
export async function treeRss(rootPid: number): Promise<number> {
  const parents = new Map<number, number>();
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, "utf8").catch(() => "");
    // Fields after the parenthesised command name: state, ppid, ...
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    if (Number.isFinite(ppid)) parents.set(Number(entry), ppid);
  }
  const tree = new Set([rootPid]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, ppid] of parents) {
      if (!tree.has(pid) && tree.has(ppid)) {
        tree.add(pid);
        grew = true;
      }
    }
  }
  let total = 0;
  for (const pid of tree) {
    const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
    const kb = /VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1];
    total += kb ? Number(kb) * 1024 : 0;
  }
  return total;
}

async function waitUntilUp(url: string, proc: ChildProcess, logFile: string): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`the app server exited with ${proc.exitCode}; see ${logFile}`);
    const status = await fetch(`${url}/sign-in`, { signal: AbortSignal.timeout(5_000) })
      .then((response) => response.status)
      .catch(() => 0);
    if (status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`the app server did not answer within 90 s; see ${logFile}`);
}

/** What the shared server verifies Replicate webhooks with (the producer-seam part signs with it). */
export const BENCH_REPLICATE_WEBHOOK_SECRET = `whsec_${randomBytes(32).toString("base64")}`;

async function start(ctx: BenchContext): Promise<AppServer> {
  await ensureBuild(ctx.log);
  const databaseUrl = await ctx.createDatabase("app");
  const authSecret = randomBytes(32).toString("base64url");
  const port = await findFreePort(3600 + (process.pid % 50));
  const url = `http://localhost:${port}`;
  // The latest run's server output, for when a request fails.
  const logFile = path.resolve(".data/bench", "app-server.log");
  const logStream = createWriteStream(logFile);
  const proc = spawn(process.execPath, serverNodeArgs(), {
    env: {
      ...process.env,
      NODE_ENV: "production",
      NEXT_DIST_DIR: BENCH_DIST_DIR,
      NEXT_TELEMETRY_DISABLED: "1",
      DATABASE_URL: databaseUrl,
      AUTH_SECRET: authSecret,
      AUTH_URL: url,
      NEXTAUTH_URL: url,
      DEMO: "0",
      PORT: String(port),
      // The ingest burst is one producer key sending tens of thousands of requests a minute.
      API_RATE_LIMIT_PER_MINUTE: "100000000",
      // Provider calls from worker ticks go nowhere (connection refused at once), never to a
      // simulator someone else runs on the default port.
      PROVIDER_MODE: "simulator",
      SIMULATOR_URL: "http://127.0.0.1:9",
      SIMULATOR_TOKEN: "bench-no-simulator",
      REPLICATE_WEBHOOK_SECRET: BENCH_REPLICATE_WEBHOOK_SECRET,
    },
    stdio: ["ignore", "pipe", "pipe"],
    // Its own process group, so stopping it also stops anything it forks.
    detached: true,
  });
  proc.stdout?.pipe(logStream);
  proc.stderr?.pipe(logStream);
  child = proc;
  await waitUntilUp(url, proc, logFile);
  ctx.log(`app server on ${url} (pid ${proc.pid}, log ${path.relative(process.cwd(), logFile)})`);
  const pid = proc.pid ?? 0;
  return {
    url,
    databaseUrl,
    authSecret,
    pid,
    rss: () => treeRss(pid),
    stop: async () => {
      if (proc.exitCode === null) {
        process.kill(-pid, "SIGTERM");
        const killer = setTimeout(() => process.kill(-pid, "SIGKILL"), 10_000);
        await waitForExit(proc);
        clearTimeout(killer);
      }
      current = null;
      child = null;
      served.clear();
    },
  };
}

/** The shared server, started on first use; `part` is recorded as one the server has served. */
export function appServer(ctx: BenchContext, part: string): Promise<AppServer> {
  served.add(part);
  current ??= start(ctx).catch((error) => {
    current = null;
    throw error;
  });
  return current;
}

/** The parts that have used the shared server so far, in order. */
export function partsServed(): string[] {
  return [...served];
}

/** Stops the shared server if one was started (the footprint part calls this after measuring). */
export async function stopAppServer(): Promise<void> {
  if (current) await (await current).stop();
}

/** The cookie next-auth would set after a sign-in, minted from this server's secret. */
export function sessionCookie(
  server: AppServer,
  user: { id: string; email: string; name: string; roles: Role[] },
): Promise<string> {
  return mintSessionCookie(server.authSecret, user);
}

/** A producer API key on the shared server's database, for a part that posts as that producer. */
export async function producerKey(server: AppServer, name: string): Promise<{ id: string; secret: string }> {
  const prisma = createPrismaClient(server.databaseUrl, 1);
  try {
    const key = await createAccessToken(prisma, "cli", { kind: "api_key", name });
    return { id: key.id, secret: key.secret };
  } finally {
    await prisma.$disconnect();
  }
}
