import { describe, expect, it } from "vitest";
import { approveCase } from "@/lib/services/case/approve-case";
import { dryRunBulk, executeBulk } from "@/lib/services/case/bulk-cases";
import { parkCase } from "@/lib/services/case/park-case";
import { overviewStats } from "@/lib/services/overview/overview-stats";
import { makeUser, parkInput, producer } from "./fixtures";
import { bulkApprove, previewApproval } from "./helpers/bulk-approval";
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
    // Parked polling cases only: the approved ones stay open (ready), and would take the limit's places.
    const input = {
      evidence: "provider recovered",
      target: { kind: "filter", filter: { model: "bulk-model", stage: "polling", state: "parked" } },
    } as const;
    const { preview, execute } = await previewApproval(db, reviewer, input, 4);
    // The money shown is what the cases it would act on hold: the four within the limit.
    expect(preview).toMatchObject({
      matching: 6,
      willAct: 4,
      beyondLimit: 2,
      heldByCurrency: [{ currency: "USD", micros: 400_000 }],
      skipped: [],
    });

    const first = await execute();
    expect(first).toMatchObject({ verb: "approve", applied: 4, skipped: [] });
    const rest = await bulkApprove(db, reviewer, input, 4);
    expect(rest.preview).toMatchObject({ matching: 2, willAct: 2 });
    expect(rest.result.applied).toBe(2);
    const actions = await db.recoveryAction.findMany({ where: { caseId: { in: ids } }, include: { decision: true } });
    expect(actions).toHaveLength(6);
    expect(new Set(actions.map((a) => a.decisionId)).size).toBe(6);
    expect(actions.every((a) => a.decision.reviewerId === reviewer.userId && a.kind === "resume_poll")).toBe(true);
    expect(await db.auditEvent.count({ where: { caseId: { in: ids }, kind: "approved" } })).toBe(6);
    const uncertain = await db.case.findFirstOrThrow({ where: { model: "bulk-model", stage: "submission_uncertain" } });
    expect(uncertain.state).toBe("parked");
  });

  it("never approves uncertain or failed cases, and operators cannot use it", async () => {
    const reviewer = await makeUser(db, ["reviewer"]);
    const caseIds: string[] = [];
    for (const stage of ["submission_uncertain", "generation_failed"] as const)
      caseIds.push((await parkCase(db, shop, parkInput(stage))).caseId);
    const { preview, result } = await bulkApprove(db, reviewer, { evidence: "x", target: { kind: "ids", caseIds } });
    expect(preview.willAct).toBe(0);
    expect(preview.skipped.map((s) => [s.caseId, s.code])).toEqual([
      [caseIds[0], "reconciliation_required"],
      [caseIds[1], "action_not_permitted_for_stage"],
    ]);
    expect(result.applied).toBe(0);
    expect(await db.recoveryAction.count({ where: { caseId: { in: caseIds } } })).toBe(0);
    expect(await db.case.count({ where: { id: { in: caseIds }, state: "parked" } })).toBe(2);

    const operator = await makeUser(db, ["operator"]);
    const action = { verb: "approve", evidence: "x" } as const;
    const target = { kind: "filter", filter: { stage: "delivery" } } as const;
    await expect(dryRunBulk(db, operator, { mode: "dry_run", action, target })).rejects.toMatchObject({
      code: "forbidden",
    });
    await expect(
      executeBulk(db, operator, { mode: "execute", action, target, token: `vrb_${"x".repeat(43)}` }),
    ).rejects.toMatchObject({ code: "forbidden" });
  });

  it("skips cases that moved on and says why", async () => {
    const reviewer = await makeUser(db, ["reviewer"]);
    const { caseId } = await parkCase(db, shop, parkInput("delivery", { model: "moved-model" }));
    await approveCase(db, reviewer, caseId, { action: "retry_delivery", evidence: "first" });
    const { preview, result } = await bulkApprove(db, reviewer, {
      evidence: "bulk",
      target: { kind: "ids", caseIds: [caseId] },
    });
    expect(preview.skipped).toEqual([
      expect.objectContaining({ caseId, code: "illegal_transition", message: "approve is not allowed while ready" }),
    ]);
    expect(result).toMatchObject({ applied: 0, skipped: preview.skipped });
    expect(await db.recoveryAction.count({ where: { caseId } })).toBe(1);
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
    expect(today?.micros).toBe(String(openHeld._sum.heldMicros));
    const quiet = await overviewStats(db, reviewer, { alertWindowMinutes: 60, alertThreshold: 10_000 });
    expect(quiet.alert).toBeNull();
  });
});
