import { beforeAll, describe, expect, it } from "vitest";
import { seedDemoUsers } from "@/lib/services/admin/seed-demo-users";
import { seedDemoCases } from "@/prisma/seed/demo-cases";
import { makeUser } from "./fixtures";
import { compareFiguresWithScans } from "./helpers/compare-figures";
import { runningTotals } from "./helpers/figures-by-scan";
import { openOwnerDb, openTestDb } from "./setup/test-db";

// The demo's backlog spans minutes to days. A case opened three days ago whose hold says "waiting
// 7 min" tells a newcomer two stories: every row a demo case writes carries the case's own age, and
// the hourly figures the triggers keep agree with full scans of those rows.
const { db } = openTestDb();
const { db: owner } = openOwnerDb();

beforeAll(async () => {
  await seedDemoUsers(db);
  await seedDemoCases(db);
});

describe("the demo's ages", () => {
  it("give each case's hold, reserve entry and first timeline events the case's own opening time", async () => {
    const cases = await db.case.findMany({
      where: { producer: "demo-shop" },
      include: { holds: { include: { entries: true } }, operation: true, attempt: true },
    });
    expect(cases).toHaveLength(36);
    const oldest = Math.min(...cases.map((c) => c.openedAt.getTime()));
    expect(Date.now() - oldest).toBeGreaterThan(24 * 3_600_000);
    for (const c of cases) {
      const opened = c.openedAt.getTime();
      const [hold] = c.holds;
      expect(hold?.createdAt.getTime(), c.operationId).toBe(opened);
      const reserve = hold?.entries.find((e) => e.kind === "reserve");
      expect(reserve?.createdAt.getTime(), c.operationId).toBe(opened);
      expect(c.operation.createdAt.getTime()).toBe(opened);
      expect(c.attempt.createdAt.getTime()).toBe(opened);
      // The submission came before the case was parked, never after.
      expect(c.submittedAt?.getTime() ?? 0).toBeLessThan(opened);
      const firstEvents = await db.auditEvent.findMany({
        where: { caseId: c.id, kind: { in: ["parked", "hold_reserved"] } },
      });
      expect(firstEvents.map((e) => e.createdAt.getTime())).toEqual([opened, opened]);
    }
  });

  it("leave the overview's and finance's hourly figures equal to full scans and to a rebuild", async () => {
    const finance = await makeUser(db, ["finance", "operator", "reviewer"]);
    const { figures } = await compareFiguresWithScans(db, finance, new Date(), {
      alertWindowMinutes: 90,
      series: "original",
    });
    for (const { figure, served, scanned } of figures) expect(served, figure).toEqual(scanned);
    const kept = await runningTotals(db);
    await owner.$executeRaw`SELECT stat_rebuild()`;
    expect(await runningTotals(db)).toEqual(kept);
  });
});
