import { randomBytes } from "node:crypto";
import { rm } from "node:fs/promises";
import path from "node:path";
import pg from "pg";
import type { TestProject } from "vitest/node";
import {
  runOnServer as admin,
  type EmbeddedDatabase,
  startEmbeddedPostgres,
  withDatabase,
} from "../../../lib/db/embedded";
import { migrate } from "../../../lib/db/migrate";

declare module "vitest" {
  export interface ProvidedContext {
    serverUrl: string;
    templateDatabase: string;
    runPrefix: string;
  }
}

/**
 * One real PostgreSQL per run (the embedded one unless DATABASE_URL names a server), one migrated
 * template database, and a fresh copy of it for every test file: no truncation, no shared rows.
 */
export default async function setup(project: TestProject) {
  const runPrefix = `vrt_${randomBytes(4).toString("hex")}`;
  let embedded: EmbeddedDatabase | undefined;
  let dataDir: string | undefined;
  let serverUrl: string;
  if (process.env.DATABASE_URL) {
    serverUrl = withDatabase(process.env.DATABASE_URL, "postgres");
  } else {
    dataDir = path.resolve(".data", `test-pg-${runPrefix}`);
    embedded = await startEmbeddedPostgres({ dataDir, preferredPort: 55432 });
    serverUrl = embedded.url;
  }
  const templateDatabase = `${runPrefix}_template`;
  await admin(serverUrl, `CREATE DATABASE "${templateDatabase}"`);
  await migrate(withDatabase(serverUrl, templateDatabase));
  project.provide("serverUrl", serverUrl);
  project.provide("templateDatabase", templateDatabase);
  project.provide("runPrefix", runPrefix);

  return async () => {
    if (embedded) {
      await embedded.stop();
      if (dataDir) await rm(dataDir, { recursive: true, force: true });
      return;
    }
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ datname: string }>(
        "SELECT datname FROM pg_database WHERE datname LIKE $1",
        [`${runPrefix}%`],
      );
      for (const { datname } of rows) await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    } finally {
      await client.end();
    }
  };
}
