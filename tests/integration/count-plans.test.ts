import { afterAll, describe, expect, it } from "vitest";
import { createPrismaClient } from "@/lib/db/client";
import { countCases } from "@/lib/services/case/count-cases";
import { parkCase } from "@/lib/services/case/park-case";
import { listCasesSchema } from "@/lib/validation/list-cases";
import { makeUser, parkInput, producer } from "./fixtures";
import { openOwnerDb, openTestDb } from "./setup/test-db";

// A view's count must not read the cases' rows: at a million cases one provider's ready cases are
// spread over 19,000 heap pages, past the count's budget (docs/performance.md §5). With sequential
// scans priced out, counting such a view must scan the cases' covering index, which answers it
// from the index alone.
const { db, url } = openTestDb();
const owner = openOwnerDb();
const session = createPrismaClient(url, 1);
afterAll(() => session.$disconnect());
const shop = producer("count-plans-shop");
const INDEX = "cases_state_stage_provider";

async function indexScans(): Promise<number> {
  await session.$executeRaw`SELECT pg_stat_force_next_flush()`;
  const rows = await db.$queryRaw<{ scans: bigint }[]>`
    SELECT idx_scan AS scans FROM pg_stat_user_indexes WHERE indexrelname = ${INDEX}`;
  return Number(rows[0]?.scans ?? 0);
}

describe("counting a view", () => {
  it("one provider's cases in one state, and a stage over an amount, are counted from the covering index", async () => {
    const reviewer = await makeUser(db, ["reviewer"]);
    for (let i = 0; i < 6; i++) await parkCase(db, shop, parkInput("polling"));
    await owner.db.$executeRawUnsafe("VACUUM ANALYZE cases");
    await session.$executeRaw`SET enable_seqscan = off`;
    for (const view of [
      { provider: "replicate", state: "parked" },
      { stage: "polling", minAmountMicros: 50_000 },
    ]) {
      const before = await indexScans();
      const counted = await countCases(session, reviewer, listCasesSchema.parse(view));
      expect(counted).toEqual({ count: 6, more: false });
      expect((await indexScans()) - before).toBeGreaterThan(0);
    }
  });
});
