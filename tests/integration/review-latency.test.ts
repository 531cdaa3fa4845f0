import { describe, expect, it } from "vitest";
import { acceptFailure } from "@/lib/services/case/accept-failure";
import { approveCase } from "@/lib/services/case/approve-case";
import { parkCase } from "@/lib/services/case/park-case";
import { overviewStats } from "@/lib/services/overview/overview-stats";
import { makeUser, parkInput, producer } from "./fixtures";
import { openTestDb } from "./setup/test-db";

// Review latency: from the moment an episode opened to its first decision, over the last day's
// decisions. A decision carries its episode's opening (stored on insert), so the overview needs no
// case lookups, and a case parked again later does not take its earlier decision out of the figure.
const { db } = openTestDb();
const shop = producer("latency-shop");
const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000);

describe("review latency", () => {
  it("times each episode's first decision from that episode's opening, a reopened case's earlier one too", async () => {
    const reviewer = await makeUser(db, ["reviewer"]);
    const polling = await parkCase(db, shop, parkInput("polling"));
    await db.$executeRaw`UPDATE cases SET opened_at = ${minutesAgo(120)} WHERE id = ${polling.caseId}::uuid`;
    await approveCase(db, reviewer, polling.caseId, { action: "resume_poll", evidence: "resume" });
    // A second approval attempt is the same decision, not a second first decision.
    await approveCase(db, reviewer, polling.caseId, { action: "resume_poll", evidence: "resume" });
    const input = parkInput("generation_failed");
    const failed = await parkCase(db, shop, input);
    await db.$executeRaw`UPDATE cases SET opened_at = ${minutesAgo(30)} WHERE id = ${failed.caseId}::uuid`;
    await acceptFailure(db, reviewer, failed.caseId, { evidence: "content policy" });
    // Parked again: episode 2 opens now; episode 1's decision keeps its own latency.
    await parkCase(db, shop, { ...input, attemptId: `${input.attemptId}-2`, hold: { ...input.hold, holdId: "h-2" } });

    const stats = await overviewStats(db, reviewer, { alertWindowMinutes: 60, alertThreshold: 1_000 });
    expect(stats.reviewLatency.decisions).toBe(2);
    // percentile_cont over 30 and 120 minutes: the median halfway, p90 near the top.
    expect(Math.abs((stats.reviewLatency.p50Seconds ?? 0) - 4_500)).toBeLessThan(30);
    expect(Math.abs((stats.reviewLatency.p90Seconds ?? 0) - 6_660)).toBeLessThan(30);
    const stored = await db.decision.findMany({ where: { caseId: failed.caseId }, select: { caseOpenedAt: true } });
    expect(stored.map((d) => Math.round((Date.now() - (d.caseOpenedAt?.getTime() ?? 0)) / 60_000))).toEqual([30]);
  });
});
