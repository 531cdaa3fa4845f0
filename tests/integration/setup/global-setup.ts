import { randomBytes } from "node:crypto";
import { rm } from "node:fs/promises";
import path from "node:path";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { type EmbeddedDatabase, startEmbeddedPostgres, withDatabase } from "@/lib/db/embedded";
import { migrate } from "@/lib/db/migrate";
import { ensureLoginRole, ensureOwnedDatabase, type LoginRole, withCredentials } from "@/lib/db/role-setup";
import { quoteIdent } from "@/lib/db/roles";

declare module "vitest" {
  export interface ProvidedContext {
    /** The server's superuser, on its `postgres` database: for creating and dropping databases. */
    serverUrl: string;
    templateDatabase: string;
    runPrefix: string;
    /** The owner of every test database's tables (migrations, DDL, disabling triggers). */
    ownerRole: LoginRole;
    /** The app's runtime role, which every test file connects as unless it asks for the owner. */
    appRole: LoginRole;
  }
}

/**
 * One real PostgreSQL per run (the embedded one unless DATABASE_URL names a server), one migrated
 * template database, and a fresh copy of it for every test file: no truncation, no shared rows.
 * Roles are cluster-wide, so this run's owner and app roles carry the run's prefix and are dropped
 * after its databases. Whatever user DATABASE_URL names, the tests connect as the app role.
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
  const ownerRole = { name: `${runPrefix}_owner`, password: randomBytes(18).toString("base64url") };
  const appRole = { name: `${runPrefix}_app`, password: randomBytes(18).toString("base64url") };
  await ensureLoginRole(serverUrl, ownerRole);
  await ensureLoginRole(serverUrl, appRole);
  const templateDatabase = `${runPrefix}_template`;
  await ensureOwnedDatabase(serverUrl, templateDatabase, ownerRole.name);
  // Grants are catalog rows of the template, so every copy of it carries them.
  await migrate(withCredentials(withDatabase(serverUrl, templateDatabase), ownerRole), { appRole: appRole.name });
  project.provide("serverUrl", serverUrl);
  project.provide("templateDatabase", templateDatabase);
  project.provide("runPrefix", runPrefix);
  project.provide("ownerRole", ownerRole);
  project.provide("appRole", appRole);

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
        "SELECT datname FROM pg_database WHERE starts_with(datname, $1)",
        [`${runPrefix}_`],
      );
      for (const { datname } of rows) await client.query(`DROP DATABASE IF EXISTS ${quoteIdent(datname)} WITH (FORCE)`);
      // Only now: a role cannot be dropped while a database still holds its objects or grants.
      for (const role of [appRole, ownerRole]) await client.query(`DROP ROLE IF EXISTS ${quoteIdent(role.name)}`);
    } finally {
      await client.end();
    }
  };
}
