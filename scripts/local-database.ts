import { randomBytes } from "node:crypto";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import pg from "pg";
import { type EmbeddedDatabase, startEmbeddedPostgres } from "../lib/db/embedded";
import { migrate } from "../lib/db/migrate";
import { adoptSuperuserPassword, type LoginRole, provisionRoles } from "../lib/db/role-setup";
import { appRoleFor } from "../lib/db/roles";
import { type Env, env } from "../lib/env";

const APP_DATABASE = "video_recovery";
/** In the embedded server: the migration role owns the database and its tables; the app role nothing. */
const OWNER_ROLE = "recovery_owner";
const APP_ROLE = "recovery_app";

export type LocalDatabase = {
  /** The app's runtime role: server, worker and seeds connect with this. */
  url: string;
  /** The owner of the tables: migrations only. The same as `url` in a single-role deployment. */
  ownerUrl: string;
  /** The runtime role that migrations grant to; null when there is only one role. */
  appRole: string | null;
  embedded?: EmbeddedDatabase;
};

/** The server's port when one is already running on this data directory (e.g. `npm start` in another terminal). */
async function runningServerPort(pgDir: string, password: string): Promise<string | null> {
  const pidFile = await readFile(path.join(pgDir, "postmaster.pid"), "utf8").catch(() => null);
  const port = pidFile?.split("\n")[3]?.trim();
  if (!port) return null;
  const client = new pg.Client({
    host: "127.0.0.1",
    port: Number(port),
    user: "postgres",
    password,
    database: "postgres",
    connectionTimeoutMillis: 2000,
  });
  // The server's answer, a refused password included, says one is there; no answer says none is.
  return client.connect().then(
    () => client.end().then(() => port),
    (error: unknown) => (error instanceof pg.DatabaseError ? port : null),
  );
}

type Passwords = { owner: LoginRole; app: LoginRole; superuser: string };

/**
 * The superuser's and the two roles' passwords, generated on first use and kept readable by this
 * user only. A file from before decision 053 gains a superuser password and keeps the others.
 */
async function rolePasswords(dataDir: string): Promise<Passwords> {
  const file = path.join(dataDir, "database-roles.json");
  const saved = JSON.parse(await readFile(file, "utf8").catch(() => "{}")) as Record<string, unknown>;
  const valid = (p: unknown): p is string => typeof p === "string" && /^[\w-]{32,}$/.test(p);
  const kept = { ...saved };
  if (!valid(kept.owner) || !valid(kept.app)) {
    kept.owner = randomBytes(24).toString("base64url");
    kept.app = randomBytes(24).toString("base64url");
  }
  if (!valid(kept.superuser)) kept.superuser = randomBytes(24).toString("base64url");
  if (kept.owner !== saved.owner || kept.superuser !== saved.superuser) {
    await mkdir(dataDir, { recursive: true });
    await writeFile(file, `${JSON.stringify(kept)}\n`, { mode: 0o600 });
    await chmod(file, 0o600);
  }
  const { owner, app, superuser } = kept as { owner: string; app: string; superuser: string };
  return { owner: { name: OWNER_ROLE, password: owner }, app: { name: APP_ROLE, password: app }, superuser };
}

/**
 * The embedded server's roles and database, as the superuser: both roles exist with their
 * passwords, the database belongs to the owner, and tables an earlier version created as the
 * superuser are handed to the owner (once; afterwards there is nothing left to hand over).
 */
async function prepareEmbedded(serverUrl: string, passwords: Passwords): Promise<Omit<LocalDatabase, "embedded">> {
  // A data directory initialised before decision 053 still has the published password: replaced here.
  const superuserUrl = await adoptSuperuserPassword(serverUrl, passwords.superuser);
  return provisionRoles(superuserUrl, APP_DATABASE, passwords);
}

/** DATABASE_URL (and MIGRATION_DATABASE_URL) when set, warning when one role does both in production. */
function configuredDatabase(url: string, migrationUrl: string | undefined, production: boolean): LocalDatabase {
  const ownerUrl = migrationUrl ?? url;
  const appRole = appRoleFor(url, ownerUrl);
  if (!appRole && production) {
    console.warn(
      "[database] Warning: the app connects as the role that runs migrations (MIGRATION_DATABASE_URL is unset or names the same user), so it could alter or delete audit and ledger rows. Point DATABASE_URL at a role that owns nothing and MIGRATION_DATABASE_URL at the owner (README, Database roles).",
    );
  }
  return { url, ownerUrl, appRole };
}

/**
 * DATABASE_URL when set; otherwise the embedded server under DATA_DIR: reused when one is
 * already running there, started (and owned by the caller) when not.
 */
export async function openLocalDatabase(config: Env = env()): Promise<LocalDatabase> {
  if (config.DATABASE_URL) return configuredDatabase(config.DATABASE_URL, config.MIGRATION_DATABASE_URL, !config.demo);
  const dataDir = path.resolve(config.DATA_DIR, "pg");
  const passwords = await rolePasswords(config.DATA_DIR);
  const running = await runningServerPort(dataDir, passwords.superuser);
  if (running) return prepareEmbedded(`postgresql://postgres@127.0.0.1:${running}/postgres`, passwords);
  const embedded = await startEmbeddedPostgres({
    dataDir,
    preferredPort: config.EMBEDDED_PG_PORT,
    password: passwords.superuser,
  });
  try {
    return { ...(await prepareEmbedded(embedded.url, passwords)), embedded };
  } catch (error) {
    await embedded.stop();
    throw error;
  }
}

/** Migrations as the owner, with the runtime role's grants. */
export function migrateLocal(database: LocalDatabase) {
  return migrate(database.ownerUrl, { appRole: database.appRole });
}

/** For one-shot commands: open, bring the schema up to date, run, and always stop what was started. */
export async function withLocalDatabase(
  run: (url: string, database: LocalDatabase) => Promise<void>,
  options = { migrate: true },
): Promise<void> {
  const database = await openLocalDatabase();
  try {
    if (options.migrate) await migrateLocal(database);
    await run(database.url, database);
  } finally {
    await database.embedded?.stop();
  }
}
