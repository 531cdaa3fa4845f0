import { describe, expect, it } from "vitest";
import { approveCase } from "@/lib/services/case/approve-case";
import { bulkApproveCases, previewBulkApprove } from "@/lib/services/case/bulk-approve-cases";
import { parkCase } from "@/lib/services/case/park-case";
import { overviewStats } from "@/lib/services/overview/overview-stats";
import { bulkApproveSchema } from "@/lib/validation/bulk";
import { makeUser, parkInput, producer } from "./fixtures";
import { openTestDb } from "./setup/test-db";

const { db } = openTestDb();
const shop = producer("bulk-shop");

describe("bulk approval", () => {
  it("gives every case its own decision, action and audit event, within the limit", async () => {
    const reviewer = await makeUser(db, ["reviewer"]);
    const ids: string[] = [];
    for (let i = 0; i < 6; i++)
      ids.push((await parkCase(db, shop, parkInput("polling", { model: "bulk-model" }))).caseId);
    await parkCase(db, shop, parkInput("submission_uncertain", { model: "bulk-model" }));
    const target = { kind: "filter", filter: { model: "bulk-model" } } as const;
    const preview = await previewBulkApprove(db, reviewer, { stage: "polling", target }, 4);
    expect(preview).toMatchObject({
      matching: 6,
      willApprove: 4,
      heldByCurrency: [{ currency: "USD", micros: 600_000 }],
    });

    const first = await bulkApproveCases(db, reviewer, { stage: "polling", target, evidence: "provider recovered" }, 4);
    expect(first).toMatchObject({ action: "resume_poll", approved: 4, skipped: [] });
    const rest = await bulkApproveCases(db, reviewer, { stage: "polling", target, evidence: "provider recovered" }, 4);
    expect(rest.approved).toBe(2);
    const actions = await db.recoveryAction.findMany({ where: { caseId: { in: ids } }, include: { decision: true } });
    expect(actions).toHaveLength(6);
    expect(new Set(actions.map((a) => a.decisionId)).size).toBe(6);
    expect(actions.every((a) => a.decision.reviewerId === reviewer.userId && a.kind === "resume_poll")).toBe(true);
    expect(await db.auditEvent.count({ where: { caseId: { in: ids }, kind: "approved" } })).toBe(6);
    const uncertain = await db.case.findFirstOrThrow({ where: { model: "bulk-model", stage: "submission_uncertain" } });
    expect(uncertain.state).toBe("parked");
  });

  it("is never offered for uncertain or failed stages, and operators cannot use it", async () => {
    for (const stage of ["submission_uncertain", "generation_failed"]) {
      const parsed = bulkApproveSchema.safeParse({
        stage,
        evidence: "x",
        target: { kind: "ids", caseIds: [crypto.randomUUID()] },
      });
      expect(parsed.success).toBe(false);
    }
    const operator = await makeUser(db, ["operator"]);
    await expect(
      bulkApproveCases(db, operator, { stage: "delivery", evidence: "x", target: { kind: "filter", filter: {} } }),
    ).rejects.toMatchObject({ code: "forbidden" });
  });

  it("skips cases that moved on and says why", async () => {
    const reviewer = await makeUser(db, ["reviewer"]);
    const { caseId } = await parkCase(db, shop, parkInput("delivery", { model: "moved-model" }));
    await approveCase(db, reviewer, caseId, { action: "retry_delivery", evidence: "first" });
    const result = await bulkApproveCases(db, reviewer, {
      stage: "delivery",
      evidence: "bulk",
      target: { kind: "ids", caseIds: [caseId] },
    });
    expect(result.approved).toBe(0);
  });
});

describe("overview", () => {
  it("counts open cases, money and uncertainty, and raises the alert past the threshold", async () => {
    const reviewer = await makeUser(db, ["operator"]);
    const other = producer("overview-shop");
    for (let i = 0; i < 3; i++) await parkCase(db, other, parkInput("submission_uncertain"));
    const stats = await overviewStats(db, reviewer, { alertWindowMinutes: 60, alertThreshold: 3 });
    const uncertain = stats.stages.find((s) => s.stage === "submission_uncertain");
    expect(uncertain?.open).toBeGreaterThanOrEqual(3);
    expect(stats.unresolvedUncertain).toBe(uncertain?.open);
    expect(stats.alert?.recentUncertain).toBeGreaterThanOrEqual(3);
    expect(stats.ageBuckets.find((b) => b.stage === "submission_uncertain")?.bucket).toBe("< 1 h");
    const today = stats.heldOverTime.at(-1);
    const openHeld = await db.case.aggregate({ _sum: { heldMicros: true } });
    expect(today?.micros).toBe(Number(openHeld._sum.heldMicros));
    const quiet = await overviewStats(db, reviewer, { alertWindowMinutes: 60, alertThreshold: 10_000 });
    expect(quiet.alert).toBeNull();
  });
});
