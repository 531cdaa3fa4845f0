import { describe, expect, it } from "vitest";
import { inTransaction } from "@/lib/db/transaction";
import { openOwnerDb } from "./setup/test-db";

// As the owner: this file creates probe tables of its own, which the app role may not.
const { db } = openOwnerDb();
const txid = async (handle: Parameters<typeof inTransaction>[0]) =>
  (await handle.$queryRaw<{ id: string }[]>`SELECT txid_current()::text AS id`)[0]?.id;

describe("inTransaction", () => {
  it("given a transaction, runs the work in that very transaction (services compose without a second one)", async () => {
    await db.$executeRaw`CREATE TABLE IF NOT EXISTS compose_probe (id int PRIMARY KEY)`;
    const ids = await inTransaction(db, async (outer) => {
      await outer.$executeRaw`INSERT INTO compose_probe VALUES (1)`;
      // Prisma 7 gives a transaction's handle its own working $transaction; it must not open another.
      const inner = await inTransaction(outer, async (tx) => ({
        id: await txid(tx),
        seesOuterWrite: (await tx.$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n FROM compose_probe`)[0]?.n,
      }));
      return { outer: await txid(outer), inner };
    });
    expect(ids.inner.id).toBe(ids.outer);
    expect(ids.inner.seesOuterWrite).toBe(1n);
  });

  it("given the client, opens a transaction that rolls back as a whole", async () => {
    await db.$executeRaw`CREATE TABLE IF NOT EXISTS rollback_probe (id int PRIMARY KEY)`;
    await expect(
      inTransaction(db, async (outer) => {
        await outer.$executeRaw`INSERT INTO rollback_probe VALUES (1)`;
        await inTransaction(outer, (tx) => tx.$executeRaw`INSERT INTO rollback_probe VALUES (2)`);
        throw new Error("undo all of it");
      }),
    ).rejects.toThrow("undo all of it");
    expect((await db.$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n FROM rollback_probe`)[0]?.n).toBe(0n);
  });
});
