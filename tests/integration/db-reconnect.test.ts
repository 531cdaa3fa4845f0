import pg from "pg";
import { describe, expect, it } from "vitest";
import { createPrismaClient } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { sqlRows } from "@/lib/db/sql-rows";
import { openTestDb } from "./setup/test-db";

// The chaos run restarts PostgreSQL under the app; here the same thing in small: every server
// connection of the app's pool is terminated, and the app's next query and transaction must work
// on fresh connections instead of failing on the dead ones.
const { db, url } = openTestDb();

async function terminateOtherBackends(): Promise<number> {
  const admin = new pg.Client({ connectionString: url });
  admin.on("error", () => {});
  await admin.connect();
  try {
    const { rowCount } = await admin.query(
      // The app's own connections: a background process of the server (autovacuum, say) may be in
      // this database too, and the app's role may not terminate it.
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
       WHERE datname = current_database() AND pid <> pg_backend_pid() AND usename = current_user`,
    );
    // Wait until the server has really let them go, so the next query cannot race the kill.
    for (let i = 0; i < 100; i++) {
      const { rows } = await admin.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND usename = current_user",
      );
      if (rows[0]?.n === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return rowCount ?? 0;
  } finally {
    await admin.end();
  }
}

describe("database reconnect", () => {
  it("after its server connections are terminated, the next query and transaction run on new ones", async () => {
    // Fill the pool with several idle connections first.
    await Promise.all(Array.from({ length: 4 }, () => db.$queryRaw`SELECT pg_sleep(0.05)::text AS slept`));
    const pidsBefore = await db.$queryRaw<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`;
    expect(await terminateOtherBackends()).toBeGreaterThanOrEqual(1);

    for (let i = 0; i < 6; i++) {
      expect(await db.$queryRaw<{ one: number }[]>`SELECT 1 AS one`).toEqual([{ one: 1 }]);
    }
    const inTx = await db.$transaction(async (tx) => tx.user.count());
    expect(inTx).toBe(await db.user.count());
    const pidsAfter = await db.$queryRaw<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`;
    expect(pidsAfter[0]?.pid).not.toBe(pidsBefore[0]?.pid);
  });

  it("a client that has only sent statements straight to its pool survives losing them too", async () => {
    // Prisma has not connected this client yet, so only the pool's own listener stands between a
    // dropped idle connection and an unhandled error event.
    const fresh = createPrismaClient(url, 3);
    try {
      const one = Prisma.sql`SELECT 1 AS one, pg_sleep(0.05)::text AS slept`;
      await Promise.all(Array.from({ length: 3 }, () => sqlRows(fresh, one)));
      expect(await terminateOtherBackends()).toBeGreaterThanOrEqual(1);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await sqlRows<{ one: number }>(fresh, Prisma.sql`SELECT 1 AS one`)).toEqual([{ one: 1 }]);
    } finally {
      await fresh.$disconnect();
    }
  });
});
