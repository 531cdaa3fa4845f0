import { randomBytes } from "node:crypto";
import { cp, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, inject } from "vitest";
import { withDatabase } from "@/lib/db/embedded";
import { migrate } from "@/lib/db/migrate";

/**
 * A fresh database migrated to just before `migration`, as an earlier deployment would be, for a
 * test to fill with what the old code wrote before it runs the rest (`migrate(url)`).
 */
export async function databaseBefore(migration: string, options: { timezone?: string } = {}): Promise<string> {
  const serverUrl = inject("serverUrl");
  const name = `${inject("runPrefix")}_before_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
    if (options.timezone) await admin.query(`ALTER DATABASE "${name}" SET timezone = '${options.timezone}'`);
  } finally {
    await admin.end();
  }
  const dir = await mkdtemp(path.join(tmpdir(), "migrations-"));
  try {
    await cp("prisma/migrations", dir, { recursive: true });
    for (const n of (await readdir(dir)).filter((n) => n >= migration))
      await rm(path.join(dir, n), { recursive: true });
    const url = withDatabase(serverUrl, name);
    await migrate(url, { dir });
    return url;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A `connect` for a test file whose clients all end after the file's tests. */
export function clientsEndedAfterAll(): (url: string) => Promise<pg.Client> {
  const clients: pg.Client[] = [];
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.end().catch(() => {})));
  });
  return async (url) => {
    const client = new pg.Client({ connectionString: url });
    clients.push(client);
    await client.connect();
    return client;
  };
}
