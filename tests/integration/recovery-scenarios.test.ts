import { describe, expect, it } from "vitest";
import { AppError } from "@/lib/errors";
import { approveCase } from "@/lib/services/case/approve-case";
import { parkCase } from "@/lib/services/case/park-case";
import { reconcileCase } from "@/lib/services/case/reconcile-case";
import { claimActions } from "@/lib/services/claim/claim-actions";
import { finishAction } from "@/lib/services/claim/finish-action";
import { makeUser, parkInput, producer, worker } from "./fixtures";
import { openTestDb } from "./setup/test-db";

// The reference article's unit tests, through the real services on a real database.
const { db } = openTestDb();
const shop = producer();
const codeOf = (error: unknown) =>
  error instanceof AppError || error instanceof Error ? (error as AppError).code : error;

async function claimCase(caseId: string, w = worker()) {
  for (let i = 0; i < 50; i++) {
    const claimed = await claimActions(db, w, { max: 50 });
    const mine = claimed.find((c) => c.caseId === caseId);
    if (mine) return { ...mine, w };
    if (claimed.length === 0) return null;
  }
  return null;
}

describe("recovery scenarios", () => {
  it("an uncertain submission needs reconciliation before any action", async () => {
    const reviewer = await makeUser(db, ["reviewer"]);
    const { caseId } = await parkCase(db, shop, parkInput("submission_uncertain"));
    for (const action of ["submit_again", "resume_poll"]) {
      const error = await approveCase(db, reviewer, caseId, { action, evidence: "timeout" }).catch((e: unknown) => e);
      expect(codeOf(error)).toBe("reconciliation_required");
    }
    expect(await claimCase(caseId)).toBeNull();
    await reconcileCase(db, reviewer, caseId, {
      verdict: "attach",
      providerJobId: "known-job",
      evidence: "matched record",
    });
    await approveCase(db, reviewer, caseId, { action: "resume_poll", evidence: "job confirmed" });
    expect(await claimCase(caseId)).not.toBeNull();
  });

  it("duplicate registration returns the case; conflicting registration is refused", async () => {
    const input = parkInput("polling");
    const first = await parkCase(db, shop, input);
    expect(first.created).toBe(true);
    const again = await parkCase(db, shop, input);
    expect(again).toEqual({ ...first, created: false });
    const error = await parkCase(db, shop, { ...input, providerJobId: "different-job" }).catch((e: unknown) => e);
    expect(codeOf(error)).toBe("conflicting_registration");
    expect(await db.case.count({ where: { operationId: input.operationId } })).toBe(1);
    expect(await db.hold.count({ where: { holdId: input.hold.holdId } })).toBe(1);
  });

  it("review, duplicate decision, one claim winner, outsider, failed finish, re-approval", async () => {
    const reviewer = await makeUser(db, ["reviewer"]);
    const operator = await makeUser(db, ["operator"]);
    const { caseId } = await parkCase(db, shop, parkInput("delivery"));
    expect(
      codeOf(
        await approveCase(db, operator, caseId, { action: "retry_delivery", evidence: "asset found" }).catch((e) => e),
      ),
    ).toBe("forbidden");
    const first = await approveCase(db, reviewer, caseId, { action: "retry_delivery", evidence: "asset found" });
    const duplicate = await approveCase(db, reviewer, caseId, { action: "retry_delivery", evidence: "duplicate" });
    expect(duplicate).toEqual({ actionId: first.actionId, created: false });

    const claims = await Promise.all(Array.from({ length: 8 }, () => claimActions(db, worker(), { max: 10 })));
    const winners = claims.flat().filter((c) => c.caseId === caseId);
    expect(winners).toHaveLength(1);
    const claim = winners[0];
    if (!claim) throw new Error("no winner");
    const owner = (await db.recoveryAction.findUniqueOrThrow({ where: { id: claim.actionId } })).leaseOwner ?? "";

    const outsider = await finishAction(
      db,
      worker("outsider"),
      { actionId: claim.actionId, workerId: "outsider", fencingToken: claim.fencingToken },
      { kind: "resolved" },
    );
    expect(outsider).toBe("lost_claim");
    const parked = await finishAction(
      db,
      worker(owner),
      { actionId: claim.actionId, workerId: owner, fencingToken: claim.fencingToken },
      { kind: "unresolved", evidence: "storage unavailable" },
    );
    expect(parked).toBe("parked");
    expect(await claimCase(caseId)).toBeNull();

    const second = await approveCase(db, reviewer, caseId, { action: "retry_delivery", evidence: "storage repaired" });
    expect(second.actionId).not.toBe(first.actionId);
    const next = await claimCase(caseId);
    if (!next) throw new Error("not claimable");
    expect(next.fencingToken).toBe(1);
    const done = await finishAction(
      db,
      next.w,
      { actionId: next.actionId, workerId: next.w.workerId, fencingToken: next.fencingToken },
      { kind: "resolved" },
    );
    expect(done).toBe("resolved");
    expect((await db.case.findUniqueOrThrow({ where: { id: caseId } })).state).toBe("resolved");
  });

  it("a new generation is never a recovery action", async () => {
    const reviewer = await makeUser(db, ["reviewer"]);
    const { caseId } = await parkCase(db, shop, parkInput("generation_failed"));
    for (const action of ["submit_again", "create", "retry_delivery", "resume_poll"]) {
      const error = await approveCase(db, reviewer, caseId, { action, evidence: "failure seen" }).catch(
        (e: unknown) => e,
      );
      expect(codeOf(error)).toBe("action_not_permitted_for_stage");
    }
    expect(await db.recoveryAction.count({ where: { caseId } })).toBe(0);
  });

  it("a successful status check that says 'still running' does not resolve the case", async () => {
    const reviewer = await makeUser(db, ["reviewer"]);
    const { caseId } = await parkCase(db, shop, parkInput("polling"));
    await approveCase(db, reviewer, caseId, { action: "resume_poll", evidence: "provider back up" });
    const claim = await claimCase(caseId);
    if (!claim) throw new Error("not claimable");
    const error = await finishAction(
      db,
      claim.w,
      { actionId: claim.actionId, workerId: claim.w.workerId, fencingToken: claim.fencingToken },
      { kind: "resolved" },
    ).catch((e: unknown) => e);
    expect(codeOf(error)).toBe("illegal_transition");
    const row = await db.case.findUniqueOrThrow({ where: { id: caseId } });
    expect(row.state).toBe("claimed");
  });
});
