import { afterEach, describe, expect, it } from "vitest";
import { createPrismaClient, type PrismaClient } from "@/lib/db/client";
import { parkCase } from "@/lib/services/case/park-case";
import { parkInput, producer } from "./fixtures";
import { openTestDb } from "./setup/test-db";

const { url } = openTestDb();
const opened: PrismaClient[] = [];
afterEach(async () => {
  delete process.env.DATABASE_PREPARED_STATEMENTS;
  await Promise.all(opened.splice(0).map((client) => client.$disconnect()));
});

/** One connection, so the statements listed are the ones this client's calls prepared. */
async function preparedAfterTwoRegistrations(): Promise<string[]> {
  const client = createPrismaClient(url, 1);
  opened.push(client);
  const shop = producer("prepared-shop");
  const input = parkInput("polling");
  await parkCase(client, shop, input);
  expect((await parkCase(client, shop, input)).created).toBe(false);
  const rows = await client.$queryRaw<{ name: string }[]>`SELECT name FROM pg_prepared_statements ORDER BY name`;
  return rows.map((row) => row.name);
}

describe("prepared statements", () => {
  it("are named by text, so a registration's statement is parsed once per connection", async () => {
    const names = await preparedAfterTwoRegistrations();
    expect(names.length).toBeGreaterThan(0);
    expect(names.every((name) => name.startsWith("s_"))).toBe(true);
  });

  it("can be switched off for connection poolers that cannot keep them", async () => {
    process.env.DATABASE_PREPARED_STATEMENTS = "off";
    expect(await preparedAfterTwoRegistrations()).toEqual([]);
  });
});
