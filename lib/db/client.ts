import { PrismaPg } from "@prisma/adapter-pg";
import { type Prisma, PrismaClient } from "./generated/prisma/client";

export type { Prisma };
export { PrismaClient };

/** Services take either the client or an open transaction, so callers decide the boundary. */
export type Db = PrismaClient | Prisma.TransactionClient;

export function createPrismaClient(connectionString: string, max = 10): PrismaClient {
  return new PrismaClient({ adapter: new PrismaPg({ connectionString, max }) });
}

const globalForPrisma = globalThis as unknown as { prisma?: PrismaClient };

/** One client per process (dev reloads would otherwise leak connection pools). */
export function db(): PrismaClient {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error("DATABASE_URL is not set");
  globalForPrisma.prisma ??= createPrismaClient(url);
  return globalForPrisma.prisma;
}
