import { afterAll, describe, expect, it } from "vitest";
import { createPrismaClient } from "@/lib/db/client";
import { parkCase } from "@/lib/services/case/park-case";
import { reconcileCase } from "@/lib/services/case/reconcile-case";
import { makeUser, parkInput, producer } from "./fixtures";
import { openTestDb } from "./setup/test-db";

const { db, url } = openTestDb();
// One connection: the triggers' plans are cached per session, made when the tables were small.
const session = createPrismaClient(url, 1);
afterAll(() => session.$disconnect());
const shop = producer("plan-shop");

/** How often each index has been scanned, as the statistics see it after the session's report. */
async function indexScans(names: string[]): Promise<Record<string, number>> {
  await session.$executeRaw`SELECT pg_stat_force_next_flush()`;
  await session.$queryRaw`SELECT 1`;
  const rows = await db.$queryRaw<{ name: string; scans: bigint }[]>`
    SELECT indexrelname AS name, idx_scan AS scans FROM pg_stat_user_indexes WHERE indexrelname = ANY(${names})`;
  return Object.fromEntries(rows.map((row) => [row.name, Number(row.scans)]));
}

// The exposure figure asks for open `submission_uncertain` cases and `held` holds. Planned on tables
// that looked empty, those conditions made the partial indexes on open cases and held holds look as
// good as a primary key, and every registration scanned all open cases of the stage, growing with the
// burst (docs/performance.md §4 has the figures). Lookups go by key instead.
describe("the running-total triggers look rows up by key, whatever the session planned them on", () => {
  const partial = ["cases_open_stage_opened_at_id", "holds_held_currency_created_at"];

  it("registers and reconciles without scanning the open-case or held-hold indexes", async () => {
    const reviewer = await makeUser(db, ["reviewer"]);
    await parkCase(session, shop, parkInput("submission_uncertain"));
    for (let i = 0; i < 40; i++) await parkCase(db, shop, parkInput("submission_uncertain"));
    const before = await indexScans(partial);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await parkCase(session, shop, parkInput("submission_uncertain"))).caseId);
    for (const [i, id] of ids.entries()) {
      await reconcileCase(session, reviewer, id, { verdict: "attach", providerJobId: `job-${i}`, evidence: "found" });
    }
    expect(await indexScans(partial)).toEqual(before);
  });
});
