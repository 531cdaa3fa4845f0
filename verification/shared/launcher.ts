import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { createPrismaClient, type PrismaClient } from "../../lib/db/client";
import { findFreePort } from "../../lib/db/embedded";
import { createAccessToken } from "../../lib/services/access/create-access-token";
import { appServer, simulatorProcess, workerLoops } from "./app-processes";
import { ensureAppBuild } from "./build";
import type { ManagedProcess } from "./managed-process";
import { ThrowawayDatabase } from "./throwaway-database";
import { waitForHttp } from "./wait-for-http";

export type Started = { process: ManagedProcess; url: string };

/**
 * What a verification run stands on: a log directory, its own production build, a throwaway
 * database, the provider simulator, the app server and worker loops. Each piece is started
 * when the run asks for it (a run seeds the database before the server comes up), and `close`
 * takes down whatever got started, so a run that fails half-way leaves nothing behind.
 */
export class Launcher {
  readonly authSecret = randomBytes(32).toString("base64url");
  private readonly owned: ManagedProcess[] = [];
  private simulatorUrl: string | undefined;

  private constructor(
    readonly log: (line: string) => void,
    readonly runDir: string,
    private readonly buildEnv: Record<string, string>,
    readonly database: ThrowawayDatabase,
    /** A small pool for the run's own checks; the app and workers have their own connections. */
    readonly pool: pg.Pool,
  ) {}

  /** `name` tags the log lines and names the temporary directory, the build and the database. */
  static async open(name: string, preferredDatabasePort: number): Promise<Launcher> {
    const log = (line: string) => console.log(`[${name}] ${new Date().toISOString().slice(11, 19)} ${line}`);
    const runDir = await mkdtemp(path.join(os.tmpdir(), `verify-${name}-`));
    const buildEnv = await ensureAppBuild(`verify-${name}`, log);
    const database = await ThrowawayDatabase.create(`verify_${name}`, preferredDatabasePort);
    const pool = new pg.Pool({ connectionString: database.url, max: 2 });
    // Idle connections die with a PostgreSQL restart; the pool drops them and the next query reconnects.
    pool.on("error", () => {});
    return new Launcher(log, runDir, buildEnv, database, pool);
  }

  async startSimulator(input: {
    preferredPort: number;
    requestLog?: string;
    env?: Record<string, string>;
  }): Promise<Started> {
    const port = await findFreePort(input.preferredPort);
    const url = `http://127.0.0.1:${port}`;
    const simulator = simulatorProcess({
      port,
      requestLog: input.requestLog,
      logFile: path.join(this.runDir, "simulator.log"),
      env: input.env,
    });
    this.owned.push(simulator);
    simulator.start();
    await waitForHttp(`${url}/__admin/stats`, 60_000);
    this.simulatorUrl = url;
    return { process: simulator, url };
  }

  /** A Prisma client on the run's database for `use`, disconnected afterwards. */
  async withClient<T>(connections: number, use: (db: PrismaClient) => Promise<T>): Promise<T> {
    const db = createPrismaClient(this.database.url, connections);
    try {
      return await use(db);
    } finally {
      await db.$disconnect();
    }
  }

  /** The server in simulator mode on the run's database; `env` adds or overrides settings. */
  async startServer(input: { preferredPort: number; env: Record<string, string> }): Promise<Started> {
    if (!this.simulatorUrl) throw new Error("start the simulator before the server");
    const port = await findFreePort(input.preferredPort);
    const url = `http://127.0.0.1:${port}`;
    const server = appServer({
      port,
      logFile: path.join(this.runDir, "server.log"),
      env: {
        ...this.buildEnv,
        DATABASE_URL: this.database.url,
        AUTH_SECRET: this.authSecret,
        DEMO: "0",
        NEXTAUTH_URL: url,
        PROVIDER_MODE: "simulator",
        SIMULATOR_URL: this.simulatorUrl,
        // Production refuses the simulator without a token; this run's simulator accepts any.
        SIMULATOR_TOKEN: "verify-run-simulator",
        DATA_DIR: path.join(this.runDir, "data"),
        ASSET_DIR: path.join(this.runDir, "assets"),
        ...input.env,
      },
    });
    this.owned.push(server);
    server.start();
    await waitForHttp(`${url}/sign-in`, 120_000, (status) => status === 200);
    return { process: server, url };
  }

  startWorkers(input: Omit<Parameters<typeof workerLoops>[0], "logFile">): ManagedProcess[] {
    const workers = workerLoops({ ...input, logFile: path.join(this.runDir, "workers.log") });
    this.owned.push(...workers);
    for (const worker of workers) worker.start();
    return workers;
  }

  /** Stops what was started, newest first; the logs are kept only when the run failed. */
  async close(passed: boolean): Promise<void> {
    for (const proc of [...this.owned].reverse()) await proc.stop();
    await this.pool.end().catch(() => {});
    await this.database.remove();
    if (passed) await rm(this.runDir, { recursive: true, force: true });
    else this.log(`logs kept in ${this.runDir}`);
  }
}

/** One worker token per worker loop, named `<prefix>-1`, `<prefix>-2`, … */
export async function createWorkerTokens(db: PrismaClient, count: number, prefix: string): Promise<string[]> {
  const tokens: string[] = [];
  for (let i = 0; i < count; i++) {
    tokens.push((await createAccessToken(db, "cli", { kind: "worker", name: `${prefix}-${i + 1}` })).secret);
  }
  return tokens;
}
