import pg from "pg";
import { processShared } from "../process-shared";
import { Prisma } from "./generated/prisma/client";
import { statementName } from "./statement-names";

type Queryable = { $queryRaw<T = unknown>(query: Prisma.Sql): Prisma.PrismaPromise<T> };
type Direct = { pool: pg.Pool; named: boolean };

// One registry per process, as db() keeps one client per process (see processShared).
const direct = processShared("direct-pools", () => new WeakMap<object, Direct>());
/** Result values as Prisma's `$queryRaw` gives them (int8 as bigint, numeric as Decimal). */
export const RAW_RESULT_TYPES = {
  getTypeParser(oid: number, format?: "text" | "binary") {
    if (format !== "binary") {
      if (oid === pg.types.builtins.INT8) return (value: string) => BigInt(value);
      if (oid === pg.types.builtins.NUMERIC) return (value: string) => new Prisma.Decimal(value);
    }
    return pg.types.getTypeParser(oid, format);
  },
};

/** The client's own pool, for `sqlRows`; the same connections Prisma uses. */
export function shareClientPool(client: object, pool: pg.Pool, named: boolean): void {
  direct.set(client, { pool, named });
}

/**
 * One raw statement on the hot path: sent straight to the client's pg pool, skipping Prisma's
 * per-call work, which costs as much client CPU as a sub-millisecond statement itself, with a
 * longer tail (docs/performance.md §1 and §5). Inside a transaction, or on any other handle, it is
 * `$queryRaw` as before, so callers keep one code path and their transaction boundaries.
 */
export async function sqlRows<T>(db: Queryable, query: Prisma.Sql): Promise<T[]> {
  const own = direct.get(db);
  if (!own || own.pool.ended) return db.$queryRaw<T[]>(query);
  const name = own.named ? statementName({ sql: query.text }) : "";
  const result = await own.pool.query({ ...(name ? { name } : {}), text: query.text, values: query.values });
  return result.rows as T[];
}

/** Whether `sqlRows` sends a statement on this handle alone, committed by itself (not in a transaction). */
export function committedAlone(db: object): boolean {
  const own = direct.get(db);
  return own !== undefined && !own.pool.ended;
}

/** PostgreSQL's SQLSTATE for a statement cancelled by `statement_timeout`. */
const QUERY_CANCELED = "57014";

/**
 * One read that may not take longer than `budgetMs` on the server: `null` when it would have
 * (the statement is cancelled there, not merely abandoned here). For figures a page can do
 * without, such as a view's count, so that one costly filter cannot hold a page or a connection.
 * On a handle without its own pool (an open transaction) the read runs unbounded.
 */
export async function sqlRowsWithin<T>(db: Queryable, query: Prisma.Sql, budgetMs: number): Promise<T[] | null> {
  const own = direct.get(db);
  if (!own || own.pool.ended) return db.$queryRaw<T[]>(query);
  const client = await own.pool.connect();
  // A connection that cannot even roll back is dropped from the pool, not handed to the next caller.
  let broken: Error | undefined;
  try {
    await client.query("BEGIN READ ONLY");
    await client.query(`SET LOCAL statement_timeout = ${Math.max(1, Math.round(budgetMs))}`);
    const result = await client.query({ text: query.text, values: query.values });
    await client.query("COMMIT");
    return result.rows as T[];
  } catch (error) {
    await client.query("ROLLBACK").catch((failed: Error) => {
      broken = failed;
    });
    if ((error as { code?: string }).code === QUERY_CANCELED) return null;
    throw error;
  } finally {
    client.release(broken);
  }
}
