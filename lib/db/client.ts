import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { processShared } from "../process-shared";
import { type Prisma, PrismaClient } from "./generated/prisma/client";
import { RAW_RESULT_TYPES, shareClientPool } from "./sql-rows";
import { preparedStatementsWanted, statementName } from "./statement-names";

export type { Prisma };
export { PrismaClient };

/** Services take either the client or an open transaction, so callers decide the boundary. */
export type Db = PrismaClient | Prisma.TransactionClient;

export function createPrismaClient(connectionString: string, max = 10): PrismaClient {
  const named = preparedStatementsWanted();
  const pool = new pg.Pool({ connectionString, max, types: RAW_RESULT_TYPES, allowExitOnIdle: true });
  // An idle connection dropped by the server (a restart, a terminated backend) is an event on the
  // pool, fatal to the process unless someone listens; the pool replaces it on the next query.
  pool.on("error", (error) => {
    console.error(JSON.stringify({ level: "warn", msg: "idle database connection lost", error: error.message }));
  });
  const adapter = new PrismaPg(pool, {
    disposeExternalPool: true,
    ...(named ? { statementNameGenerator: statementName } : {}),
  });
  const client = new PrismaClient({ adapter });
  shareClientPool(client, pool, named);
  return client;
}

/**
 * One client per process: dev reloads would otherwise leak connection pools, and the HTTP entry
 * and Next.js's bundle share it (processShared).
 */
export function db(): PrismaClient {
  return processShared("prisma-client", () => {
    const url = process.env.DATABASE_URL;
    if (!url) throw new Error("DATABASE_URL is not set");
    return createPrismaClient(url);
  });
}
