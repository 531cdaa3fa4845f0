import { PrismaPg } from "@prisma/adapter-pg";
import { type Prisma, PrismaClient } from "./generated/prisma/client";
import { preparedStatementsWanted, statementNamer } from "./statement-names";

export type { Prisma };
export { PrismaClient };

/** Services take either the client or an open transaction, so callers decide the boundary. */
export type Db = PrismaClient | Prisma.TransactionClient;

const statementName = statementNamer();

export function createPrismaClient(connectionString: string, max = 10): PrismaClient {
  const options = preparedStatementsWanted() ? { statementNameGenerator: statementName } : {};
  return new PrismaClient({ adapter: new PrismaPg({ connectionString, max }, options) });
}

const globalForPrisma = globalThis as unknown as { prisma?: PrismaClient };

/** One client per process (dev reloads would otherwise leak connection pools). */
export function db(): PrismaClient {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error("DATABASE_URL is not set");
  globalForPrisma.prisma ??= createPrismaClient(url);
  return globalForPrisma.prisma;
}
