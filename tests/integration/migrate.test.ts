import { randomBytes } from "node:crypto";
import { cp, mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, describe, expect, inject, it } from "vitest";
import { withDatabase } from "@/lib/db/embedded";
import { MigrationError, migrate, readMigrations } from "@/lib/db/migrate";
import { RESTRICTED_TABLES } from "@/lib/db/roles";

const serverUrl = inject("serverUrl");
const clients: pg.Client[] = [];

async function emptyDatabase(): Promise<string> {
  const name = `${inject("runPrefix")}_mig_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  return withDatabase(serverUrl, name);
}

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  clients.push(client);
  await client.connect();
  const { rows } = await client.query<T>(sql);
  await client.end();
  return rows;
}

/** A private copy of the real migrations that a test may add to or tamper with. */
async function migrationsCopy(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "migrations-"));
  await cp("prisma/migrations", dir, { recursive: true });
  return dir;
}

afterAll(async () => {
  await Promise.all(clients.map((c) => c.end().catch(() => {})));
});

describe("migration runner", () => {
  it("applies every migration once, then reports nothing to do", async () => {
    const url = await emptyDatabase();
    const local = await readMigrations("prisma/migrations");
    const first = await migrate(url);
    expect(first.applied).toEqual(local.map((m) => m.name));
    const second = await migrate(url);
    expect(second.applied).toEqual([]);
    expect(second.alreadyApplied).toEqual(local.map((m) => m.name));
  });

  it("keeps Prisma's bookkeeping rows exactly", async () => {
    const url = await emptyDatabase();
    await migrate(url);
    const rows = await query<{
      migration_name: string;
      checksum: string;
      applied_steps_count: number;
      finished: boolean;
    }>(
      url,
      `SELECT migration_name, checksum, applied_steps_count, finished_at IS NOT NULL AS finished FROM _prisma_migrations ORDER BY migration_name`,
    );
    const local = await readMigrations("prisma/migrations");
    expect(rows).toEqual(
      local.map((m) => ({ migration_name: m.name, checksum: m.checksum, applied_steps_count: 1, finished: true })),
    );
    const columns = await query<{ column_name: string; data_type: string }>(
      url,
      `SELECT column_name, data_type FROM information_schema.columns WHERE table_name = '_prisma_migrations' ORDER BY ordinal_position`,
    );
    expect(columns.map((c) => c.column_name)).toEqual([
      "id",
      "checksum",
      "finished_at",
      "migration_name",
      "logs",
      "rolled_back_at",
      "started_at",
      "applied_steps_count",
    ]);
  });

  it("applies each migration exactly once when several runs race", async () => {
    const url = await emptyDatabase();
    const reports = await Promise.all(Array.from({ length: 6 }, () => migrate(url)));
    const local = await readMigrations("prisma/migrations");
    for (const name of local.map((m) => m.name)) {
      expect(reports.filter((r) => r.applied.includes(name))).toHaveLength(1);
    }
    const rows = await query<{ n: string }>(url, "SELECT count(*) AS n FROM _prisma_migrations");
    expect(Number(rows[0]?.n)).toBe(local.length);
  });

  it("refuses a migration whose file changed after it was applied", async () => {
    const url = await emptyDatabase();
    const dir = await migrationsCopy();
    await migrate(url, { dir });
    const [first] = await readMigrations(dir);
    await writeFile(path.join(dir, first?.name ?? "", "migration.sql"), `${first?.sql}\n-- edited later\n`);
    await expect(migrate(url, { dir })).rejects.toThrow(/changed after it was applied/);
  });

  it("reports a failing migration with its error, records it, and stops there", async () => {
    const url = await emptyDatabase();
    const dir = await migrationsCopy();
    await mkdir(path.join(dir, "29990101000000_broken"));
    await writeFile(
      path.join(dir, "29990101000000_broken", "migration.sql"),
      "CREATE TABLE ok_part (id int);\nSELECT * FROM no_such_table;",
    );
    const error = await migrate(url, { dir }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MigrationError);
    expect((error as MigrationError).message).toMatch(/29990101000000_broken failed: .*no_such_table/);
    const rows = await query<{ logs: string | null; finished_at: Date | null }>(
      url,
      `SELECT logs, finished_at FROM _prisma_migrations WHERE migration_name = '29990101000000_broken'`,
    );
    expect(rows[0]?.finished_at).toBeNull();
    expect(rows[0]?.logs).toMatch(/no_such_table/);
    // The failed file ran in a transaction: its first statement left nothing behind.
    const tables = await query(url, `SELECT 1 FROM information_schema.tables WHERE table_name = 'ok_part'`);
    expect(tables).toHaveLength(0);
    await expect(migrate(url, { dir })).rejects.toThrow(/failed earlier/);
  });
});

describe("the runtime role's grants", () => {
  const app = () => inject("appRole").name;
  const privileges = async (url: string, table: string) =>
    (
      await query<{ p: string }>(
        url,
        `SELECT string_agg(p, ',' ORDER BY p) AS p FROM unnest(ARRAY['SELECT','INSERT','UPDATE','DELETE','TRUNCATE','REFERENCES','TRIGGER']) p
          WHERE has_table_privilege('${app()}', '${table}', p)`,
      )
    )[0]?.p;

  it("follow the list in roles.ts on every table, cover a table a later migration adds, and converge when run again", async () => {
    const url = await emptyDatabase();
    const dir = await migrationsCopy();
    const report = await migrate(url, { dir, appRole: app() });
    expect(report.grants?.role).toBe(app());
    for (const [table, listed] of Object.entries(RESTRICTED_TABLES)) {
      if (!(table in (report.grants?.tables ?? {}))) continue; // not in this branch's schema yet
      expect(await privileges(url, table), table).toBe([...listed].sort().join(","));
    }
    expect(await privileges(url, "cases")).toBe("DELETE,INSERT,SELECT,UPDATE");
    expect(await privileges(url, "audit_events")).toBe("INSERT,SELECT");
    expect(await privileges(url, "ledger_entries")).toBe("INSERT,SELECT");

    // A new table, and a privilege someone granted by hand: the next run covers the one and takes back the other.
    await mkdir(path.join(dir, "29990101000000_later"));
    await writeFile(path.join(dir, "29990101000000_later", "migration.sql"), "CREATE TABLE later_things (id int);");
    await query(url, `GRANT UPDATE, TRUNCATE ON audit_events TO "${app()}"`);
    await migrate(url, { dir, appRole: app() });
    expect(await privileges(url, "later_things")).toBe("DELETE,INSERT,SELECT,UPDATE");
    expect(await privileges(url, "audit_events")).toBe("INSERT,SELECT");
    const schema = await query<{ create: boolean; usage: boolean }>(
      url,
      `SELECT has_schema_privilege('${app()}', 'public', 'CREATE') AS create, has_schema_privilege('${app()}', 'public', 'USAGE') AS usage`,
    );
    expect(schema[0]).toEqual({ create: false, usage: true });
  });

  it("refuse an app role that grants could not restrict (a superuser, or the tables' owner)", async () => {
    const url = await emptyDatabase();
    const superuser = decodeURIComponent(new URL(url).username);
    const error = await migrate(url, { appRole: superuser }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MigrationError);
    expect((error as Error).message).toMatch(/superuser or owns tables/);
  });
});
