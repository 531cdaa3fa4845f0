import { afterAll, describe, expect, it } from "vitest";
import { createPrismaClient } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { sqlRows } from "@/lib/db/sql-rows";
import { openOwnerDb } from "./setup/test-db";

// A database whose own TimeZone is not UTC (set by whoever runs the server) must not move any
// instant the app stores or reads: Prisma's adapter sends and reads timestamps without offsets.
// As the owner: this file changes the database's settings, which the app role may not.
const { db, url } = openOwnerDb();
const name = new URL(url).pathname.slice(1);

afterAll(() => db.$executeRawUnsafe(`ALTER DATABASE "${name}" RESET timezone`));

describe("sessions in a database set to Asia/Kolkata", () => {
  it("store, read and compare instants exactly, through Prisma and through pg alike", async () => {
    await db.$executeRawUnsafe(`ALTER DATABASE "${name}" SET timezone = 'Asia/Kolkata'`);
    const withOptions = new URL(url);
    withOptions.searchParams.set("options", "-c application_name=tz-check");
    const kolkata = createPrismaClient(withOptions.toString(), 2);
    try {
      const at = new Date("2026-11-30T00:00:00.000Z");
      const user = await kolkata.user.create({
        data: {
          email: `tz-${Date.now()}@example.com`,
          name: "tz",
          passwordHash: "x",
          roles: ["operator"],
          createdAt: at,
        },
      });
      const query = Prisma.sql`
        SELECT created_at AS stored, extract(epoch FROM created_at)::float8 AS epoch, now() AS now,
               current_setting('TimeZone') AS zone, current_setting('application_name') AS app,
               current_setting('jit') AS jit
        FROM users WHERE id = ${user.id}::uuid`;
      type Row = { stored: Date; epoch: number; now: Date; zone: string; app: string; jit: string };
      const [viaPrisma] = await kolkata.$queryRaw<Row[]>(query);
      const [viaPg] = await sqlRows<Row>(kolkata, query);
      for (const row of [viaPrisma, viaPg]) {
        expect(row?.epoch).toBe(at.getTime() / 1000);
        expect(row?.stored.toISOString()).toBe(at.toISOString());
        expect(Math.abs((row?.now.getTime() ?? 0) - Date.now())).toBeLessThan(60_000);
        expect(row?.zone).toBe("UTC");
        expect(row?.app).toBe("tz-check");
        expect(row?.jit).toBe("off");
      }
      const read = await kolkata.user.findUniqueOrThrow({ where: { id: user.id } });
      expect(read.createdAt.toISOString()).toBe(at.toISOString());
    } finally {
      await kolkata.$disconnect();
    }
  });
});
