import { describe, expect, it } from "vitest";
import { approveCase } from "@/lib/services/case/approve-case";
import { parkCase } from "@/lib/services/case/park-case";
import { makeUser, parkInput, producer } from "./fixtures";
import { runningTotals } from "./helpers/figures-by-scan";
import { openTestDb } from "./setup/test-db";

const { db } = openTestDb();
const shop = producer("trigger-shop");
const deltaCount = async () =>
  Number((await db.$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n FROM stat_deltas`)[0]?.n);

describe("the case trigger of the running totals", () => {
  it("writes nothing for updates that change no figure, and the right deltas when one row of many does", async () => {
    const reviewer = await makeUser(db, ["reviewer"]);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const { caseId } = await parkCase(db, shop, parkInput("polling"));
      await approveCase(db, reviewer, caseId, { action: "resume_poll", evidence: "go" });
      ids.push(caseId);
    }
    const totalsBefore = await runningTotals(db);
    const before = await deltaCount();
    // What a claim does to a case: ready to claimed, a new version. No figure reads either.
    await db.$executeRaw`UPDATE cases SET state = 'claimed', version = version + 1 WHERE id = ANY(${ids}::uuid[])`;
    expect(await deltaCount()).toBe(before);
    expect(await runningTotals(db)).toEqual(totalsBefore);

    // One of the three resolves in the same statement as two that only change state: that one counts.
    await db.$executeRaw`UPDATE cases SET state = CASE WHEN id = ${ids[0]}::uuid THEN 'resolved' ELSE 'ready' END::"CaseState"
      WHERE id = ANY(${ids}::uuid[])`;
    expect(await deltaCount()).toBeGreaterThan(before);
    type Total = { figure: string; hour: Date | null; count: string };
    const open = (totals: unknown[]) =>
      (totals as Total[])
        .filter((t) => t.figure === "open_cases" && t.hour === null)
        .reduce((sum, t) => sum + Number(t.count), 0);
    expect(open(await runningTotals(db))).toBe(open(totalsBefore) - 1);
  });
});
