import type pg from "pg";

/**
 * What the application's runtime role may do, table by table (DESIGN rule 15). This list is the
 * whole policy: a table named here gets exactly these privileges, every other table in the schema
 * gets the plain data privileges below, and the role owns nothing, so it can neither alter a table
 * nor disable its triggers. A table named here that does not exist (yet) is skipped.
 */
export const RESTRICTED_TABLES: Readonly<Record<string, readonly TablePrivilege[]>> = {
  // History and money are written once: the app appends and reads, never rewrites.
  audit_events: ["SELECT", "INSERT"],
  ledger_entries: ["SELECT", "INSERT"],
  // Which provider account's webhooks are ours: learned once, then changed only by the owner.
  provider_accounts: ["SELECT", "INSERT"],
  // Kept by a SECURITY DEFINER trigger on audit_events; the app only reads it.
  audit_chain_heads: ["SELECT"],
  // What retention's definer functions judge by, and what they did (decision 052): owner-kept,
  // written only by SECURITY DEFINER triggers and functions, so the app cannot move them.
  case_resolution_facts: ["SELECT"],
  retention_policy_log: ["SELECT"],
  audit_redactions: ["SELECT"],
  // The migration runner's bookkeeping: readable (to see what is applied), never writable.
  _prisma_migrations: ["SELECT"],
};

/** Every other table: the rows the app needs to change. Never TRUNCATE, REFERENCES or TRIGGER. */
export const DATA_PRIVILEGES: readonly TablePrivilege[] = ["SELECT", "INSERT", "UPDATE", "DELETE"];

/** Sequences behind identity columns: take the next value and read it, never reset it. */
export const SEQUENCE_PRIVILEGES = ["USAGE", "SELECT"] as const;

export type TablePrivilege = "SELECT" | "INSERT" | "UPDATE" | "DELETE";

const SCHEMA = "public";

export type GrantReport = { role: string; tables: Record<string, readonly TablePrivilege[]> };

/**
 * The runtime role, when the app connects as a different user than the migration runner;
 * null for a single-role deployment, where there is nobody to restrict.
 */
export function appRoleFor(appUrl: string | undefined, ownerUrl: string): string | null {
  if (!appUrl) return null;
  const app = decodeURIComponent(new URL(appUrl).username);
  const owner = decodeURIComponent(new URL(ownerUrl).username);
  return app && app !== owner ? app : null;
}

export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/**
 * Sets the runtime role's privileges to exactly the list above, on every table that exists now.
 * Revoke-then-grant inside one transaction, so running it again (after every migration) converges
 * on the same state and a table added by a later migration is always covered. Runs as the owner.
 */
export async function applyRoleGrants(client: pg.Client, role: string): Promise<GrantReport> {
  const { rows: roles } = await client.query<{ rolsuper: boolean; owns: boolean }>(
    `SELECT r.rolsuper,
            EXISTS (SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                     WHERE n.nspname = $2 AND c.relowner = r.oid) AS owns
       FROM pg_roles r WHERE r.rolname = $1`,
    [role, SCHEMA],
  );
  const found = roles[0];
  if (!found) throw new Error(`The application role ${role} does not exist; create it first (see README)`);
  if (found.rolsuper || found.owns) {
    throw new Error(
      `The application role ${role} is a superuser or owns tables, so grants cannot restrict it; connect the app as a role that owns nothing (see README)`,
    );
  }
  const { rows } = await client.query<{ name: string; kind: "r" | "p" | "v" | "m" | "S" }>(
    `SELECT c.relname AS name, c.relkind AS kind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'v', 'm', 'S') ORDER BY c.relname`,
    [SCHEMA],
  );
  const { rows: current } = await client.query<{ database: string }>("SELECT current_database() AS database");
  const database = current[0]?.database ?? "";
  const who = quoteIdent(role);
  const schema = quoteIdent(SCHEMA);
  const tables: GrantReport["tables"] = {};
  await client.query("BEGIN");
  try {
    // Nobody but the schema's owner creates objects in it (PostgreSQL before 15 let everyone).
    await client.query(`REVOKE CREATE ON SCHEMA ${schema} FROM PUBLIC`);
    await client.query(`REVOKE CREATE ON SCHEMA ${schema} FROM ${who}`);
    await client.query(`REVOKE CREATE ON DATABASE ${quoteIdent(database)} FROM ${who}`);
    await client.query(`GRANT USAGE ON SCHEMA ${schema} TO ${who}`);
    await client.query(`REVOKE ALL ON ALL TABLES IN SCHEMA ${schema} FROM ${who}`);
    await client.query(`REVOKE ALL ON ALL SEQUENCES IN SCHEMA ${schema} FROM ${who}`);
    for (const { name, kind } of rows) {
      const object = `${schema}.${quoteIdent(name)}`;
      if (kind === "S") {
        await client.query(`GRANT ${SEQUENCE_PRIVILEGES.join(", ")} ON SEQUENCE ${object} TO ${who}`);
        continue;
      }
      const privileges = RESTRICTED_TABLES[name] ?? DATA_PRIVILEGES;
      await client.query(`GRANT ${privileges.join(", ")} ON TABLE ${object} TO ${who}`);
      tables[name] = privileges;
    }
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  }
  return { role, tables };
}
