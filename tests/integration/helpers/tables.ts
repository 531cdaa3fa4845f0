import type { PrismaClient } from "@/lib/db/client";

/** Every application table in the public schema (the migration bookkeeping excluded). */
export async function applicationTables(db: PrismaClient): Promise<string[]> {
  const rows = await db.$queryRaw<{ table_name: string }[]>`
    SELECT table_name FROM information_schema.tables
    WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name <> '_prisma_migrations'
    ORDER BY table_name`;
  return rows.map((row) => row.table_name);
}

/** Row count of every application table, to prove that a refused call wrote nothing anywhere. */
export async function countRows(db: PrismaClient): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of await applicationTables(db)) {
    const rows = await db.$queryRawUnsafe<{ n: number }[]>(`SELECT count(*)::int AS n FROM "${table}"`);
    counts[table] = rows[0]?.n ?? -1;
  }
  return counts;
}

/** Every row of every application table as JSON text: what a leak search has to look through. */
export async function dumpAllRows(db: PrismaClient): Promise<string> {
  const parts: string[] = [];
  for (const table of await applicationTables(db)) {
    const rows = await db.$queryRawUnsafe<{ row: string }[]>(`SELECT row_to_json(t)::text AS row FROM "${table}" t`);
    for (const { row } of rows) parts.push(`${table}: ${row}`);
  }
  return parts.join("\n");
}
