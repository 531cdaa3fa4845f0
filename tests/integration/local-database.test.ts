import { cp, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { PUBLISHED_SUPERUSER_PASSWORD, runOnServer, startEmbeddedPostgres, withDatabase } from "@/lib/db/embedded";
import { migrate } from "@/lib/db/migrate";
import { savedSuperuserUrl } from "@/lib/db/saved-superuser";
import { parseEnv } from "@/lib/env";
import { type LocalDatabase, migrateLocal, openLocalDatabase } from "@/scripts/local-database";

// The launcher's embedded database, on a data directory of its own (not the suite's server): the
// app runs as a role that owns nothing, on a fresh directory and on one an earlier version left.
const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function dataDir(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "local-db-"));
  dirs.push(dir);
  return dir;
}

const config = (dir: string, port: number) => parseEnv({ DATA_DIR: dir, EMBEDDED_PG_PORT: String(port) });

async function query<T extends pg.QueryResultRow>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

async function refusal(url: string, sql: string): Promise<string | undefined> {
  return query(url, sql).then(
    () => undefined,
    (error: pg.DatabaseError) => error.code,
  );
}

/** What every launch must leave: migrated as the owner, the app role owning nothing and refused history edits. */
async function expectTwoRoles(database: LocalDatabase) {
  expect(new URL(database.url).username).toBe("recovery_app");
  expect(new URL(database.ownerUrl).username).toBe("recovery_owner");
  expect(database.appRole).toBe("recovery_app");
  const owners = await query<{ owner: string; n: number }>(
    database.url,
    "SELECT tableowner AS owner, count(*)::int AS n FROM pg_tables WHERE schemaname = 'public' GROUP BY 1",
  );
  expect(owners).toEqual([{ owner: "recovery_owner", n: expect.any(Number) }]);
  expect(await refusal(database.url, "UPDATE audit_events SET kind = kind")).toBe("42501");
  expect(await refusal(database.url, "ALTER TABLE ledger_entries DISABLE TRIGGER ALL")).toBe("42501");
  expect(await refusal(database.url, "CREATE TABLE sneaky (id int)")).toBe("42501");
}

async function savedPasswords(dir: string): Promise<Record<string, string>> {
  return JSON.parse(await readFile(path.join(dir, "database-roles.json"), "utf8"));
}

/** The superuser answers to the generated password kept 0600 with the roles', never to the published one. */
async function expectOwnSuperuserPassword(dir: string, database: LocalDatabase) {
  const saved = await savedPasswords(dir);
  expect(saved.superuser).toMatch(/^[\w-]{32,}$/);
  const superuser = (password: string) =>
    Object.assign(new URL(database.url), { username: "postgres", password: encodeURIComponent(password) }).toString();
  expect(await refusal(superuser(PUBLISHED_SUPERUSER_PASSWORD), "SELECT 1")).toBe("28P01");
  expect(await query(superuser(saved.superuser ?? ""), "SELECT current_user AS who")).toEqual([{ who: "postgres" }]);
  expect(await savedSuperuserUrl(dir)).toBe(superuser(saved.superuser ?? "").replace("/video_recovery", "/postgres"));
}

describe("the launcher's embedded database", () => {
  it("on a fresh data directory: creates the owner and app roles, keeps their passwords 0600, and migrates as the owner", async () => {
    const dir = await dataDir();
    const database = await openLocalDatabase(config(dir, 58432));
    try {
      const report = await migrateLocal(database);
      expect(report.applied.length).toBeGreaterThan(0);
      expect(report.grants?.role).toBe("recovery_app");
      await expectTwoRoles(database);
      expect((await stat(path.join(dir, "database-roles.json"))).mode & 0o777).toBe(0o600);
      await expectOwnSuperuserPassword(dir, database);
      const dbOwner = await query<{ owner: string }>(
        database.url,
        "SELECT pg_get_userbyid(datdba) AS owner FROM pg_database WHERE datname = current_database()",
      );
      expect(dbOwner[0]?.owner).toBe("recovery_owner");
    } finally {
      await database.embedded?.stop();
    }
    // Started again on the same directory: the same roles and passwords, nothing to apply.
    const again = await openLocalDatabase(config(dir, 58432));
    try {
      // The port may differ (the first free one from the preferred port is taken); nothing else may.
      const withoutPort = (url: string) => Object.assign(new URL(url), { port: "" }).toString();
      expect(withoutPort(again.url)).toBe(withoutPort(database.url));
      expect((await migrateLocal(again)).applied).toEqual([]);
    } finally {
      await again.embedded?.stop();
    }
  });

  it("on a data directory an earlier version migrated as the superuser: hands its tables to the owner and keeps its rows", async () => {
    const dir = await dataDir();
    // What the earlier launcher did: the database and every table belong to `postgres`.
    const old = await startEmbeddedPostgres({ dataDir: path.join(dir, "pg"), preferredPort: 58442 });
    try {
      await runOnServer(old.url, 'CREATE DATABASE "video_recovery"');
      const oldUrl = withDatabase(old.url, "video_recovery");
      await migrate(oldUrl, { dir: await olderMigrations() });
      await query(oldUrl, "INSERT INTO users (email, name) VALUES ('kept@example.com', 'Kept')");
    } finally {
      await old.stop();
    }
    // The roles file as it was before the superuser had a password of its own.
    const before = { owner: "o".repeat(32), app: "a".repeat(32) };
    await writeFile(path.join(dir, "database-roles.json"), JSON.stringify(before), { mode: 0o600 });
    const database = await openLocalDatabase(config(dir, 58442));
    try {
      await migrateLocal(database);
      await expectTwoRoles(database);
      // The published password was changed on this start; the roles kept theirs.
      await expectOwnSuperuserPassword(dir, database);
      expect(await savedPasswords(dir)).toMatchObject(before);
      expect(new URL(database.url).password).toBe(before.app);
      const kept = await query<{ email: string }>(database.url, "SELECT email FROM users");
      expect(kept).toEqual([{ email: "kept@example.com" }]);
      // Enums and functions changed hands too, so later migrations can alter them.
      const strays = await query<{ n: number }>(
        database.ownerUrl,
        `SELECT (SELECT count(*) FROM pg_type WHERE typnamespace = 'public'::regnamespace AND typtype = 'e' AND pg_get_userbyid(typowner) <> 'recovery_owner')
              + (SELECT count(*) FROM pg_proc WHERE pronamespace = 'public'::regnamespace AND pg_get_userbyid(proowner) <> 'recovery_owner') AS n`,
      );
      expect(Number(strays[0]?.n)).toBe(0);
    } finally {
      await database.embedded?.stop();
    }
  });
});

/** The migrations before the ledger's append-only trigger: the last state an earlier version left. */
async function olderMigrations(): Promise<string> {
  const dir = await dataDir();
  await cp("prisma/migrations", dir, { recursive: true });
  for (const name of await readdir(dir)) {
    if (name >= "20261202000000") await rm(path.join(dir, name), { recursive: true });
  }
  return dir;
}
