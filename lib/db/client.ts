import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { logger } from "../log/logger";
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
  const pool = new pg.Pool({
    connectionString: withSessionSettings(connectionString),
    max,
    types: RAW_RESULT_TYPES,
    allowExitOnIdle: true,
  });
  // An idle connection dropped by the server (a restart, a terminated backend) is an event on the
  // pool, fatal to the process unless someone listens; the pool replaces it on the next query.
  pool.on("error", (error) => {
    logger("db").warn({ error: error.message }, "idle database connection lost");
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
 * Every session in UTC, whatever the database's own TimeZone. Prisma's adapter sends a Date as a
 * UTC time without an offset and reads timestamps back without theirs, so in a session elsewhere
 * (Asia/Kolkata, say) it would store instants 5.5 hours off, read `now()` 5.5 hours ahead, and
 * disagree with `pg` and with the database's own defaults: leases, ages and hold timelines would
 * all drift. Days in SQL (`date_trunc('day', ...)`) are UTC days, as the console shows them.
 *
 * And no JIT compilation: the app's statements are short, and generic plans' cost estimates push
 * them past `jit_above_cost`, where compiling costs more than running (docs/decisions/010).
 */
function withSessionSettings(connectionString: string): string {
  const url = new URL(connectionString);
  const options = url.searchParams.get("options");
  url.searchParams.set("options", [options, "-c TimeZone=UTC -c jit=off"].filter(Boolean).join(" "));
  return url.toString();
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
