import { afterAll, inject } from "vitest";
import { createPrismaClient, type PrismaClient } from "@/lib/db/client";
import { withDatabase } from "@/lib/db/embedded";
import { withCredentials } from "@/lib/db/role-setup";

/** A client on this file's private database as the app role, closed when the file ends. */
export function openTestDb(): { db: PrismaClient; url: string } {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error("per-file setup did not provide DATABASE_URL");
  const db = createPrismaClient(url, 5);
  afterAll(() => db.$disconnect());
  return { db, url };
}

/**
 * The same database as the owner of its tables, for tests that change the schema, backdate rows
 * behind a trigger or check what the owner itself cannot do. Never for product behaviour.
 */
export function openOwnerDb(): { db: PrismaClient; url: string } {
  const url = ownerUrl();
  const db = createPrismaClient(url, 2);
  afterAll(() => db.$disconnect());
  return { db, url };
}

export function ownerUrl(): string {
  const url = process.env.MIGRATION_DATABASE_URL;
  if (!url) throw new Error("per-file setup did not provide MIGRATION_DATABASE_URL");
  return url;
}

/** URLs for another database cloned from the template (tests that need several). */
export function databaseUrls(database: string): { url: string; ownerUrl: string } {
  const server = withDatabase(inject("serverUrl"), database);
  return { url: withCredentials(server, inject("appRole")), ownerUrl: withCredentials(server, inject("ownerRole")) };
}
