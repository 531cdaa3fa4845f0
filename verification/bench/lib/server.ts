import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { runOnServer, startEmbeddedPostgres, withDatabase } from "../../../lib/db/embedded";
import { migrate } from "../../../lib/db/migrate";
import type { BenchContext } from "./types";

/**
 * A throwaway embedded PostgreSQL for one benchmark run, or the server DATABASE_URL names.
 * Every part gets databases of its own, migrated exactly as the product's are.
 */
export async function openBenchServer(
  log: (message: string) => void,
): Promise<{ ctx: BenchContext; close: () => Promise<void> }> {
  let stop = async () => {};
  let serverUrl: string;
  if (process.env.DATABASE_URL) {
    serverUrl = withDatabase(process.env.DATABASE_URL, "postgres");
  } else {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), "bench-pg-"));
    const embedded = await startEmbeddedPostgres({ dataDir: path.join(dataDir, "pg"), preferredPort: 57432 });
    serverUrl = embedded.url;
    stop = async () => {
      await embedded.stop();
      await rm(dataDir, { recursive: true, force: true });
    };
  }
  const created: string[] = [];
  const admin = (sql: string) => runOnServer(serverUrl, sql);
  const createDatabase = async (name: string) => {
    const database = `bench_${name.replace(/[^a-z0-9_]/gi, "_").toLowerCase()}_${process.pid}`;
    await admin(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    await admin(`CREATE DATABASE "${database}"`);
    created.push(database);
    const url = withDatabase(serverUrl, database);
    await migrate(url);
    return url;
  };
  const close = async () => {
    for (const database of created) await admin(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`).catch(() => {});
    await stop();
  };
  return { ctx: { serverUrl, createDatabase, log }, close };
}
