import { createHash, randomUUID } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import pg from "pg";
import { applyRoleGrants, type GrantReport } from "./roles";

/** The lock id Prisma's own migrate uses, so our runner and `prisma migrate deploy` exclude each other. */
const ADVISORY_LOCK_ID = 72707369;

export type MigrationReport = { applied: string[]; alreadyApplied: string[]; grants: GrantReport | null };

export type MigrateOptions = {
  /** The directory of migrations; prisma/migrations by default. */
  dir?: string;
  /**
   * The application's runtime role: after the migrations, its privileges are set to the list in
   * roles.ts on every table (new ones included). Null or absent: a single-role deployment.
   */
  appRole?: string | null;
};

export class MigrationError extends Error {
  constructor(
    message: string,
    readonly migration: string,
  ) {
    super(message);
  }
}

type LocalMigration = { name: string; sql: string; checksum: string };
type AppliedRow = {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
  logs: string | null;
};

export async function readMigrations(dir: string): Promise<LocalMigration[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const names = entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  return Promise.all(
    names.map(async (name) => {
      const sql = await readFile(path.join(dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    }),
  );
}

const BOOKKEEPING_DDL = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

/**
 * Applies pending migrations in name order, keeping Prisma's `_prisma_migrations` table exactly
 * as `prisma migrate deploy` would, so either tool can take over a database; then grants the
 * runtime role its privileges. Connect as the owner of the tables.
 */
export async function migrate(connectionString: string, options: MigrateOptions = {}): Promise<MigrationReport> {
  const dir = options.dir ?? path.resolve("prisma/migrations");
  const local = await readMigrations(dir);
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [ADVISORY_LOCK_ID]);
    await client.query(BOOKKEEPING_DDL);
    const { rows } = await client.query<AppliedRow>(
      `SELECT migration_name, checksum, finished_at, rolled_back_at, logs
         FROM "_prisma_migrations" WHERE rolled_back_at IS NULL ORDER BY started_at`,
    );
    const report: MigrationReport = { applied: [], alreadyApplied: [], grants: null };
    for (const migration of local) {
      const row = rows.find((r) => r.migration_name === migration.name);
      if (row && !row.finished_at) {
        throw new MigrationError(
          `Migration ${migration.name} failed earlier and needs attention before anything else is applied: ${row.logs ?? "no log"}`,
          migration.name,
        );
      }
      if (row) {
        if (row.checksum !== migration.checksum) {
          throw new MigrationError(
            `Migration ${migration.name} was changed after it was applied (checksum ${row.checksum} in the database, ${migration.checksum} on disk)`,
            migration.name,
          );
        }
        report.alreadyApplied.push(migration.name);
        continue;
      }
      await apply(client, migration);
      report.applied.push(migration.name);
    }
    // Still under the lock, so two runners never interleave their revoke-and-grant.
    if (options.appRole) report.grants = await grant(client, options.appRole);
    return report;
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [ADVISORY_LOCK_ID]).catch(() => {});
    await client.end();
  }
}

async function grant(client: pg.Client, role: string): Promise<GrantReport> {
  try {
    return await applyRoleGrants(client, role);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new MigrationError(`Granting the application role ${role} its privileges failed: ${message}`, "(grants)");
  }
}

async function apply(client: pg.Client, migration: LocalMigration): Promise<void> {
  const id = randomUUID();
  await client.query(
    `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, applied_steps_count)
     VALUES ($1, $2, $3, now(), 0)`,
    [id, migration.checksum, migration.name],
  );
  try {
    await client.query("BEGIN");
    await client.query(migration.sql);
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    const message = error instanceof Error ? error.message : String(error);
    await client.query(`UPDATE "_prisma_migrations" SET logs = $2 WHERE id = $1`, [id, message]);
    throw new MigrationError(`Migration ${migration.name} failed: ${message}`, migration.name);
  }
  await client.query(`UPDATE "_prisma_migrations" SET finished_at = now(), applied_steps_count = 1 WHERE id = $1`, [
    id,
  ]);
}
