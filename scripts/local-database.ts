import { readFile } from "node:fs/promises";
import path from "node:path";
import pg from "pg";
import { type EmbeddedDatabase, startEmbeddedPostgres, withDatabase } from "../lib/db/embedded";
import { migrate } from "../lib/db/migrate";
import { env } from "../lib/env";

const APP_DATABASE = "video_recovery";

async function ensureDatabase(serverUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (!rowCount) await client.query(`CREATE DATABASE "${name}"`);
  } finally {
    await client.end();
  }
}

/** A server already running on this data directory (e.g. `npm start` in another terminal). */
async function runningServerUrl(dataDir: string): Promise<string | null> {
  const pidFile = await readFile(path.join(dataDir, "postmaster.pid"), "utf8").catch(() => null);
  const port = pidFile?.split("\n")[3]?.trim();
  if (!port) return null;
  const url = `postgresql://postgres:postgres@127.0.0.1:${port}/postgres`;
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.end();
    return url;
  } catch {
    return null;
  }
}

/**
 * DATABASE_URL when set; otherwise the embedded server under DATA_DIR: reused when one is
 * already running there, started (and owned by the caller) when not.
 */
export async function openLocalDatabase(): Promise<{ url: string; embedded?: EmbeddedDatabase }> {
  const config = env();
  if (config.DATABASE_URL) return { url: config.DATABASE_URL };
  const dataDir = path.resolve(config.DATA_DIR, "pg");
  const running = await runningServerUrl(dataDir);
  if (running) return { url: withDatabase(running, APP_DATABASE) };
  const embedded = await startEmbeddedPostgres({ dataDir, preferredPort: config.EMBEDDED_PG_PORT });
  await ensureDatabase(embedded.url, APP_DATABASE);
  return { url: withDatabase(embedded.url, APP_DATABASE), embedded };
}

/** For one-shot commands: open, bring the schema up to date, run, and always stop what was started. */
export async function withLocalDatabase(
  run: (url: string) => Promise<void>,
  options = { migrate: true },
): Promise<void> {
  const { url, embedded } = await openLocalDatabase();
  try {
    if (options.migrate) await migrate(url);
    await run(url);
  } finally {
    await embedded?.stop();
  }
}
