import type { Db, Prisma } from "./client";

/**
 * Runs `work` in a transaction: a new one when given the client, the caller's when given a
 * transaction, so a service composes into a larger unit without nesting. (In Prisma 7 a
 * transaction's handle has a working `$transaction` of its own, which runs in that same
 * transaction; `tests/integration/in-transaction.test.ts` holds it to that.)
 */
export async function inTransaction<T>(db: Db, work: (tx: Prisma.TransactionClient) => Promise<T>): Promise<T> {
  if ("$transaction" in db && typeof db.$transaction === "function") {
    return db.$transaction(work, { timeout: 15_000, maxWait: 10_000 });
  }
  return work(db);
}
