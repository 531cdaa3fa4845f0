import { afterAll, describe, expect, it, vi } from "vitest";
import { consoleSettings, saveConsoleSettings } from "@/lib/services/admin/console-settings";
import { addNote } from "@/lib/services/case/add-note";
import { approveCase } from "@/lib/services/case/approve-case";
import { assignCase } from "@/lib/services/case/assign-case";
import { parkCase } from "@/lib/services/case/park-case";
import { reconcileCase } from "@/lib/services/case/reconcile-case";
import { makeUser, parkInput, producer } from "./fixtures";
import { bulkApprove, previewApproval } from "./helpers/bulk-approval";
import { openTestDb } from "./setup/test-db";

// Issue 19, part 3: with "assignment means ownership" on, only the assignee (or an admin) decides an
// assigned case, through every path a decision takes (one case, bulk); off, an assignee is a label.
const { db } = openTestDb();
const shop = producer("owner-shop");
const approve = { action: "resume_poll", evidence: "provider healthy" } as const;
const codeOf = (error: unknown) => (error as { code?: string }).code;

afterAll(async () => {
  await db.consoleSetting.update({ where: { id: true }, data: { assignmentIsOwnership: false } });
});

async function assignedCase(stage: "polling" | "submission_uncertain", to: { userId: string }, model?: string) {
  const { caseId } = await parkCase(db, shop, parkInput(stage, model ? { model } : {}));
  await assignCase(db, await makeUser(db, ["operator"]), caseId, { assigneeId: to.userId });
  return caseId;
}

describe("assignment as ownership", () => {
  it("off, the assignee is a label: anyone with the role decides", async () => {
    const [owner, other] = [await makeUser(db, ["reviewer"]), await makeUser(db, ["reviewer"])];
    expect((await consoleSettings(db)).assignmentIsOwnership).toBe(false);
    const caseId = await assignedCase("polling", owner);
    await approveCase(db, other, caseId, approve);
    expect((await db.case.findUniqueOrThrow({ where: { id: caseId } })).state).toBe("ready");
  });

  it("on, only the assignee or an admin decides; notes and reassignment stay open; nothing is written on refusal", async () => {
    const admin = await makeUser(db, ["admin"]);
    const [owner, other] = [await makeUser(db, ["reviewer"]), await makeUser(db, ["reviewer"])];
    const reviewingAdmin = await makeUser(db, ["reviewer", "admin"]);
    await expect(saveConsoleSettings(db, other, { assignmentIsOwnership: true })).rejects.toMatchObject({
      code: "forbidden",
    });
    await saveConsoleSettings(db, admin, { assignmentIsOwnership: true });
    const audit = await db.auditEvent.findFirstOrThrow({
      where: { kind: "console_settings_updated" },
      orderBy: { id: "desc" },
    });
    expect(audit).toMatchObject({ before: { assignmentIsOwnership: false }, after: { assignmentIsOwnership: true } });

    const polling = await assignedCase("polling", owner);
    const refused = await approveCase(db, other, polling, approve).catch((error: unknown) => error);
    expect(codeOf(refused)).toBe("assigned_to_someone_else");
    expect((refused as { status: number }).status).toBe(403);
    expect((refused as Error).message).toContain(owner.name);
    expect(await db.decision.count({ where: { caseId: polling } })).toBe(0);
    expect((await db.case.findUniqueOrThrow({ where: { id: polling } })).state).toBe("parked");
    // A reconciliation is a decision too.
    const uncertain = await assignedCase("submission_uncertain", owner);
    await expect(
      reconcileCase(db, other, uncertain, {
        verdict: "attach",
        providerJobId: `job-${uncertain}`,
        evidence: "found it",
      }),
    ).rejects.toMatchObject({ code: "assigned_to_someone_else" });
    // Notes and reassignment are not decisions.
    await addNote(db, other, polling, { text: "asked the owner" });
    await assignCase(db, other, polling, { assigneeId: other.userId });
    await approveCase(db, other, polling, approve);
    expect((await db.case.findUniqueOrThrow({ where: { id: polling } })).state).toBe("ready");
    // The assignee, and an admin who reviews, decide as before.
    await approveCase(db, owner, await assignedCase("polling", owner), approve);
    await approveCase(db, reviewingAdmin, await assignedCase("polling", owner), approve);
  });

  it("on, a bulk approval skips the cases someone else owns, with the reason, and approves the rest", async () => {
    const admin = await makeUser(db, ["admin"]);
    await saveConsoleSettings(db, admin, { assignmentIsOwnership: true });
    const [owner, other] = [await makeUser(db, ["reviewer"]), await makeUser(db, ["reviewer"])];
    const model = `owned-${Date.now()}`;
    const owned = await assignedCase("polling", owner, model);
    const mine = await assignedCase("polling", other, model);
    const { caseId: free } = await parkCase(db, shop, parkInput("polling", { model }));
    const alsoOwned = await assignedCase("polling", owner, model);
    // The setting is read once for the whole dry run, not once per case; the execution's cases are
    // the person's own or nobody's, which no setting could refuse them, so it reads nothing.
    const settingReads = vi.spyOn(db.consoleSetting, "findUnique");
    const { preview, result } = await bulkApprove(db, other, {
      evidence: "provider healthy",
      target: { kind: "filter", filter: { model } },
    });
    expect(settingReads).toHaveBeenCalledTimes(1);
    settingReads.mockRestore();
    expect(preview.skipped.map((s) => [s.caseId, s.code, s.at])).toEqual([
      [owned, "assigned_to_someone_else", "dry_run"],
      [alsoOwned, "assigned_to_someone_else", "dry_run"],
    ]);
    expect(result.applied).toBe(2);
    expect(result.skipped).toEqual(preview.skipped);
    const states = await db.case.findMany({
      where: { id: { in: [owned, alsoOwned, mine, free] } },
      select: { id: true, state: true },
    });
    expect(Object.fromEntries(states.map((c) => [c.id, c.state]))).toEqual({
      [owned]: "parked",
      [alsoOwned]: "parked",
      [mine]: "ready",
      [free]: "ready",
    });
  });

  it("turned on between a bulk dry run and its execution, the execution still skips cases someone else owns", async () => {
    const admin = await makeUser(db, ["admin"]);
    await saveConsoleSettings(db, admin, { assignmentIsOwnership: false });
    const [owner, other] = [await makeUser(db, ["reviewer"]), await makeUser(db, ["reviewer"])];
    const model = `owned-later-${Date.now()}`;
    const owned = await assignedCase("polling", owner, model);
    const { caseId: free } = await parkCase(db, shop, parkInput("polling", { model }));
    const { preview, execute } = await previewApproval(db, other, {
      evidence: "provider healthy",
      target: { kind: "filter", filter: { model } },
    });
    expect(preview).toMatchObject({ willAct: 2, skipped: [] });
    await saveConsoleSettings(db, admin, { assignmentIsOwnership: true });
    const result = await execute();
    expect(result.appliedCaseIds).toEqual([free]);
    expect(result.skipped).toEqual([
      expect.objectContaining({ caseId: owned, code: "assigned_to_someone_else", at: "execute" }),
    ]);
    expect(await db.decision.count({ where: { caseId: owned } })).toBe(0);
    expect((await db.case.findUniqueOrThrow({ where: { id: owned } })).state).toBe("parked");
  });
});
