import { randomBytes } from "node:crypto";
import pg from "pg";
import { PUBLISHED_SUPERUSER_PASSWORD, withDatabase } from "./embedded";
import { quoteIdent } from "./roles";

/**
 * Creating the owner and runtime roles on a server we administer ourselves (the embedded one,
 * the test server). A managed PostgreSQL gets the same roles from the SQL in the README.
 */
export type LoginRole = { name: string; password: string };

async function withClient<T>(url: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

/** Role names and passwords are ours (generated), but a statement gets nothing it could misread. */
function literal(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/**
 * The role exists, can log in with this password, and holds no special powers. Run again, it
 * resets the password to the one given, so a lost password file is repaired by a new one.
 */
export async function ensureLoginRole(serverUrl: string, role: LoginRole): Promise<void> {
  await withClient(serverUrl, async (client) => {
    const { rowCount } = await client.query("SELECT 1 FROM pg_roles WHERE rolname = $1", [role.name]);
    const verb = rowCount ? "ALTER" : "CREATE";
    await client.query(
      `${verb} ROLE ${quoteIdent(role.name)} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD ${literal(role.password)}`,
    );
  });
}

/** The database exists and belongs to `owner` (so its public schema does too, on PostgreSQL 15+). */
export async function ensureOwnedDatabase(serverUrl: string, database: string, owner: string): Promise<void> {
  await withClient(serverUrl, async (client) => {
    const { rows } = await client.query<{ owner: string }>(
      "SELECT pg_get_userbyid(datdba) AS owner FROM pg_database WHERE datname = $1",
      [database],
    );
    if (!rows[0]) await client.query(`CREATE DATABASE ${quoteIdent(database)} OWNER ${quoteIdent(owner)}`);
    else if (rows[0].owner !== owner)
      await client.query(`ALTER DATABASE ${quoteIdent(database)} OWNER TO ${quoteIdent(owner)}`);
  });
}

/**
 * Hands every table, sequence, function and type in the public schema that a superuser owns to
 * `owner`: a database migrated by an earlier version (as the superuser) keeps working, now owned
 * by the migration role. Objects of other roles are left alone. Returns how many changed hands;
 * after the first run there is nothing left to move, so it is cheap on every start.
 */
export async function transferSuperuserObjects(databaseUrl: string, owner: string): Promise<number> {
  return withClient(databaseUrl, async (client) => {
    const to = quoteIdent(owner);
    const bySuperuser = (column: string) =>
      `${column} IN (SELECT oid FROM pg_roles WHERE rolsuper) AND ${column} <> (SELECT oid FROM pg_roles WHERE rolname = $1)`;
    const statements: string[] = [];
    // Tables first: their indexes and the sequences of their identity columns follow them.
    const tables = await client.query<{ name: string }>(
      `SELECT format('%I.%I', n.nspname, c.relname) AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm', 'f') AND ${bySuperuser("c.relowner")}`,
      [owner],
    );
    for (const { name } of tables.rows) statements.push(`ALTER TABLE ${name} OWNER TO ${to}`);
    const routines = await client.query<{ name: string }>(
      `SELECT p.oid::regprocedure::text AS name FROM pg_proc p
        WHERE p.pronamespace = 'public'::regnamespace AND ${bySuperuser("p.proowner")}`,
      [owner],
    );
    for (const { name } of routines.rows) statements.push(`ALTER ROUTINE ${name} OWNER TO ${to}`);
    // Enums and domains; a table's row type and array types follow their table or element type.
    const types = await client.query<{ name: string }>(
      `SELECT t.oid::regtype::text AS name FROM pg_type t
        WHERE t.typnamespace = 'public'::regnamespace AND t.typtype IN ('e', 'd') AND ${bySuperuser("t.typowner")}`,
      [owner],
    );
    for (const { name } of types.rows) statements.push(`ALTER TYPE ${name} OWNER TO ${to}`);
    if (statements.length === 0) return 0;
    await client.query("BEGIN");
    try {
      for (const statement of statements) await client.query(statement);
      // Free-standing sequences (none today): what the tables did not take along.
      const sequences = await client.query<{ name: string }>(
        `SELECT format('%I.%I', n.nspname, c.relname) AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE n.nspname = 'public' AND c.relkind = 'S' AND ${bySuperuser("c.relowner")}`,
        [owner],
      );
      for (const { name } of sequences.rows) await client.query(`ALTER SEQUENCE ${name} OWNER TO ${to}`);
      await client.query("COMMIT");
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      throw error;
    }
    return statements.length;
  });
}

/** Whether `url` connects; false only when the server refuses its password (28P01), else it throws. */
async function passwordAccepted(url: string): Promise<boolean> {
  try {
    await withClient(url, async () => {});
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === "28P01") return false;
    throw error;
  }
}

/**
 * The server's superuser (the user `serverUrl` names) has `password`: on a data directory an
 * earlier version initialised, it still had the published default, which is changed here, once
 * (docs/decisions/053). Returns `serverUrl` with the password that now works.
 */
export async function adoptSuperuserPassword(serverUrl: string, password: string): Promise<string> {
  const wanted = Object.assign(new URL(serverUrl), { password: encodeURIComponent(password) }).toString();
  if (await passwordAccepted(wanted)) return wanted;
  const published = Object.assign(new URL(serverUrl), { password: PUBLISHED_SUPERUSER_PASSWORD }).toString();
  if (!(await passwordAccepted(published))) {
    throw new Error(
      "The embedded database's superuser refuses both the password saved in database-roles.json and the old default; restore that file from a backup of the data directory (see docs/security.md)",
    );
  }
  await withClient(published, (client) => client.query(`ALTER ROLE CURRENT_USER PASSWORD ${literal(password)}`));
  return wanted;
}

/** `url` with another user and password (same server, same database). */
export function withCredentials(url: string, role: LoginRole): string {
  const parsed = new URL(url);
  parsed.username = encodeURIComponent(role.name);
  parsed.password = encodeURIComponent(role.password);
  return parsed.toString();
}

/** Two fresh roles named after `prefix`, with random passwords: for throwaway servers. */
export function throwawayRoles(prefix: string): { owner: LoginRole; app: LoginRole } {
  const password = () => randomBytes(18).toString("base64url");
  return {
    owner: { name: `${prefix}_owner`, password: password() },
    app: { name: `${prefix}_app`, password: password() },
  };
}

/**
 * As the server's superuser: both roles exist, `database` exists and belongs to the owner, and
 * whatever a superuser created in it before is handed to the owner. Returns the database's URL
 * for each role; the caller migrates with `ownerUrl` and `appRole`, and runs the app on `url`.
 */
export async function provisionRoles(
  serverUrl: string,
  database: string,
  roles: { owner: LoginRole; app: LoginRole },
): Promise<{ url: string; ownerUrl: string; appRole: string }> {
  await ensureLoginRole(serverUrl, roles.owner);
  await ensureLoginRole(serverUrl, roles.app);
  await ensureOwnedDatabase(serverUrl, database, roles.owner.name);
  const superuserUrl = withDatabase(serverUrl, database);
  await transferSuperuserObjects(superuserUrl, roles.owner.name);
  return {
    url: withCredentials(superuserUrl, roles.app),
    ownerUrl: withCredentials(superuserUrl, roles.owner),
    appRole: roles.app.name,
  };
}
