import { afterAll } from "vitest";
import { createPrismaClient, type PrismaClient } from "../../../lib/db/client";

/** A client on this file's private database, closed when the file ends. */
export function openTestDb(): { db: PrismaClient; url: string } {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error("per-file setup did not provide DATABASE_URL");
  const db = createPrismaClient(url, 5);
  afterAll(() => db.$disconnect());
  return { db, url };
}
