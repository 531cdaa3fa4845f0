import { beforeAll, describe, expect, it } from "vitest";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { approveCase } from "@/lib/services/case/approve-case";
import { parkCase } from "@/lib/services/case/park-case";
import { NOT_PAUSED } from "@/lib/services/claim/claim-actions";
import { pauseScope } from "@/lib/services/scope-pause/pause-scope";
import { resumeScope } from "@/lib/services/scope-pause/resume-scope";
import { openPause } from "@/lib/services/scope-pause/writer/pauses";
import { makeUser, parkInput, producer } from "./fixtures";
import { openTestDb } from "./setup/test-db";

// Decision 064: while nobody paused anything, the claim's pause check reads no case at all; decision
// 070: the breaker's pauses and people's closed pauses, in the same table, do not change that.
const { db } = openTestDb();

type PlanNode = { "Relation Name"?: string; "Actual Loops"?: number; Plans?: PlanNode[] };
const nodes = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodes)];

async function caseReads(): Promise<number> {
  const [row] = await db.$queryRaw<{ "QUERY PLAN": [{ Plan: PlanNode }] }[]>(Prisma.sql`
    EXPLAIN (ANALYZE, FORMAT JSON)
    SELECT a.id FROM recovery_actions a WHERE a.status = 'ready' AND ${NOT_PAUSED} LIMIT 10`);
  const plan = row?.["QUERY PLAN"][0].Plan;
  if (!plan) throw new Error("no plan");
  return nodes(plan)
    .filter((n) => n["Relation Name"] === "cases")
    .reduce((sum, n) => sum + (n["Actual Loops"] ?? 0), 0);
}

describe("the claim's pause check", () => {
  beforeAll(async () => {
    const reviewer = await makeUser(db, ["reviewer"]);
    for (let i = 0; i < 3; i++) {
      const { caseId } = await parkCase(db, producer("plan-shop"), parkInput("polling"));
      await approveCase(db, reviewer, caseId, { action: "resume_poll", evidence: "check it again" });
    }
  });

  it("reads no case while nothing is paused, and each candidate's case once something is", async () => {
    expect(await caseReads()).toBe(0);
    const admin = await makeUser(db, ["admin"]);
    await openPause(
      db,
      { kind: "provider", value: "replicate", cause: "breaker" },
      { reason: "plan test", pausedById: null, pausedByLabel: "Unknown-outcome breaker", untilSeconds: 600 },
    );
    await pauseScope(db, admin, { kind: "model", value: "a-resumed-model", reason: "plan test" });
    await resumeScope(db, admin, { kind: "model", value: "a-resumed-model", reason: "plan test" });
    expect(await caseReads()).toBe(0);
    await pauseScope(db, admin, { kind: "model", value: "some-other-model", reason: "plan test" });
    expect(await caseReads()).toBeGreaterThan(0);
  });

  it("answers from the partial indexes of open pauses, as the table of every pause ever set grows", async () => {
    // The planner prefers a scan of a table this small; forbidding it shows the indexes fit the queries.
    const plans = await db.$transaction(async (tx) => {
      await tx.$executeRaw`SET LOCAL enable_seqscan = off`;
      const claim = await tx.$queryRaw<{ "QUERY PLAN": unknown }[]>(Prisma.sql`
        EXPLAIN (FORMAT JSON) SELECT a.id FROM recovery_actions a WHERE a.status = 'ready' AND ${NOT_PAUSED} LIMIT 10`);
      const gate = await tx.$queryRaw<{ "QUERY PLAN": unknown }[]>(Prisma.sql`
        EXPLAIN (FORMAT JSON) SELECT cause FROM pauses
        WHERE (kind, value) IN (('provider'::"PauseKind", 'replicate'), ('producer'::"PauseKind", 'plan-shop'),
                                ('model'::"PauseKind", 'm')) AND resumed_at IS NULL AND at_provider IN ('', 'replicate')
          AND (until IS NULL OR until > now())`);
      return { claim: JSON.stringify(claim), gate: JSON.stringify(gate) };
    });
    expect(plans.claim).toContain("pauses_people_open");
    expect(plans.gate).toContain("pauses_open");
  });
});
