import { describe, expect, it } from "vitest";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { sqlRows, sqlRowsWithin } from "@/lib/db/sql-rows";
import { inTransaction } from "@/lib/db/transaction";
import { isUniqueViolation } from "@/lib/db/unique-violation";
import { openOwnerDb } from "./setup/test-db";

// As the owner: this file creates probe tables of its own, which the app role may not.
const { db } = openOwnerDb();

const EVERY_KIND = Prisma.sql`
  SELECT ${9_007_199_254_740_993n}::int8 AS big, 12.50::numeric AS money, 7::int AS small, 1.5::float8 AS ratio,
         true AS yes, 'text'::text AS words, '2026-11-30T01:02:03.004Z'::timestamptz AS at,
         '{"a":[1,"b"]}'::jsonb AS doc, ARRAY['x','y']::text[] AS list, 'polling'::"Stage" AS stage,
         '6f1c2a8e-3b7d-4c1e-9a2f-0d5e8b7c6a41'::uuid AS id, NULL::int8 AS nothing,
         ${new Date("2026-11-29T00:00:00Z")}::timestamptz AS param_at, ${["p", "q"]}::text[] AS param_list`;

describe("sqlRows", () => {
  it("reads every kind of value exactly as $queryRaw does", async () => {
    const direct = await sqlRows<Record<string, unknown>>(db, EVERY_KIND);
    const viaPrisma = await db.$queryRaw<Record<string, unknown>[]>(EVERY_KIND);
    expect(direct).toEqual(viaPrisma);
    expect(direct[0]?.big).toBe(9_007_199_254_740_993n);
    expect(String(direct[0]?.money)).toBe("12.5");
  });

  it("runs inside the caller's transaction when given one", async () => {
    await db.$executeRaw`CREATE TABLE IF NOT EXISTS sql_rows_probe (id int PRIMARY KEY)`;
    const seen = await inTransaction(db, async (tx) => {
      await tx.$executeRaw`INSERT INTO sql_rows_probe VALUES (1)`;
      return sqlRows<{ n: bigint }>(tx, Prisma.sql`SELECT count(*) AS n FROM sql_rows_probe`);
    });
    expect(seen[0]?.n).toBe(1n);
  });

  it("reports a taken unique key in a form isUniqueViolation recognises, like Prisma's", async () => {
    await db.$executeRaw`CREATE TABLE IF NOT EXISTS sql_rows_unique (id int PRIMARY KEY)`;
    await db.$executeRaw`INSERT INTO sql_rows_unique VALUES (1)`;
    const insertAgain = Prisma.sql`INSERT INTO sql_rows_unique VALUES (1) RETURNING id`;
    const direct = await sqlRows(db, insertAgain).catch((error: unknown) => error);
    const viaPrisma = await db.$queryRaw(insertAgain).catch((error: unknown) => error);
    // The driver's own error: the statement went to the pool, not through Prisma.
    expect((direct as { code?: string }).code).toBe("23505");
    expect((viaPrisma as { code?: string }).code).toBe("P2010");
    expect(isUniqueViolation(direct)).toBe(true);
    expect(isUniqueViolation(viaPrisma)).toBe(true);
    expect(isUniqueViolation(new Error("something else"))).toBe(false);
  });

  it("cancels a read that outlasts its budget on the server, answers null, and leaves the pool usable", async () => {
    const slow = Prisma.sql`SELECT pg_sleep(${0.5}::float8) IS NULL AS slept, 1 AS n`;
    const started = Date.now();
    expect(await sqlRowsWithin(db, slow, 50)).toBeNull();
    expect(Date.now() - started).toBeLessThan(450);
    // Cancelled, not abandoned: no backend is still sleeping for it.
    const sleeping = await sqlRows<{ n: bigint }>(
      db,
      Prisma.sql`SELECT count(*) AS n FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep%' AND state = 'active'`,
    );
    expect(sleeping[0]?.n).toBe(0n);
    expect(await sqlRowsWithin<{ n: number }>(db, Prisma.sql`SELECT 1 AS n`, 50)).toEqual([{ n: 1 }]);
    // Other errors are errors, and every connection of the pool still answers afterwards.
    await expect(sqlRowsWithin(db, Prisma.sql`SELECT 1/0`, 1000)).rejects.toMatchObject({ code: "22012" });
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => sqlRows<{ n: number }>(db, Prisma.sql`SELECT 2 AS n`)),
    );
    expect(answers.flat()).toEqual(Array.from({ length: 12 }, () => ({ n: 2 })));
    // The budget is the read's own: the session's timeout is as it was.
    expect(await sqlRows<{ statement_timeout: string }>(db, Prisma.sql`SHOW statement_timeout`)).toEqual([
      { statement_timeout: "0" },
    ]);
  });
});
