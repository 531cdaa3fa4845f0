import { afterAll, describe, expect, it } from "vitest";
import { createPrismaClient } from "@/lib/db/client";
import { acceptFailure } from "@/lib/services/case/accept-failure";
import { caseFlagFigures } from "@/lib/services/case/case-flags";
import { escalateOverdueCases } from "@/lib/services/case/escalate-overdue-cases";
import { listCases } from "@/lib/services/case/list-cases";
import { parkCase } from "@/lib/services/case/park-case";
import { listHolds } from "@/lib/services/hold/list-holds";
import { listCasesSchema } from "@/lib/validation/list-cases";
import { makeUser, parkInput, producer, worker } from "./fixtures";
import { openTestDb } from "./setup/test-db";

// The flags' reads must stay cheap at a million cases, where nearly every case is resolved and
// its hold decided: each one reads its own partial index. A predicate spelled differently from the
// index's cannot use it, so with sequential scans priced out each read must still scan its index.
const { db, url } = openTestDb();
const session = createPrismaClient(url, 1);
afterAll(() => session.$disconnect());
const shop = producer("flag-plans-shop");

async function indexScans(name: string): Promise<number> {
  await session.$executeRaw`SELECT pg_stat_force_next_flush()`;
  const rows = await db.$queryRaw<{ scans: bigint }[]>`
    SELECT idx_scan AS scans FROM pg_stat_user_indexes WHERE indexrelname = ${name}`;
  return Number(rows[0]?.scans ?? 0);
}

async function scansDuring(name: string, read: () => Promise<unknown>): Promise<number> {
  const before = await indexScans(name);
  await read();
  return (await indexScans(name)) - before;
}

describe("the flags read their own partial indexes", () => {
  it("for the sweep, the queue filters, the finance list and the figures", async () => {
    const reviewer = await makeUser(db, ["reviewer", "finance", "operator"]);
    const past = new Date(Date.now() - 60_000).toISOString();
    for (let i = 0; i < 6; i++) await parkCase(db, shop, parkInput("polling", { retryDeadline: past }));
    for (let i = 0; i < 4; i++) {
      const { caseId } = await parkCase(db, shop, parkInput("generation_failed"));
      await acceptFailure(db, reviewer, caseId, { evidence: "failed" });
    }
    await session.$executeRaw`SET enable_seqscan = off`;
    await db.$executeRaw`ANALYZE cases`;

    expect(await scansDuring("cases_escalation_due", () => escalateOverdueCases(session, worker(), 3))).toBe(1);
    const escalated = listCasesSchema.parse({ flag: "escalated" });
    expect(
      await scansDuring("cases_open_escalated_opened_at_id", () => listCases(session, reviewer, escalated)),
    ).toBeGreaterThan(0);
    const holdOpen = listCasesSchema.parse({ flag: "hold_open" });
    const index = "cases_resolved_hold_open_opened_at_id";
    expect(await scansDuring(index, () => listCases(session, reviewer, holdOpen))).toBeGreaterThan(0);
    const byAmount = listCasesSchema.parse({ flag: "hold_open", sort: "amount" });
    expect(
      await scansDuring("cases_resolved_hold_open_held_micros_id", () => listCases(session, reviewer, byAmount)),
    ).toBeGreaterThan(0);
    const holds = { status: "held", view: "needs_decision", limit: 50 } as const;
    expect(await scansDuring(index, () => listHolds(session, reviewer, holds))).toBeGreaterThan(0);
    expect(await scansDuring("cases_open_escalated_opened_at_id", () => caseFlagFigures(session))).toBeGreaterThan(0);
  });
});
