import { describe, expect, it, vi } from "vitest";
import type { AppError } from "@/lib/errors";
import type { JobStatus } from "@/lib/providers/types";
import { approveCase } from "@/lib/services/case/approve-case";
import { assignCase } from "@/lib/services/case/assign-case";
import { parkCase } from "@/lib/services/case/park-case";
import { type ClaimedAction, claimActions, proofOf } from "@/lib/services/claim/claim-actions";
import { extendLease } from "@/lib/services/claim/extend-lease";
import { finishAction } from "@/lib/services/claim/finish-action";
import { recordObservation } from "@/lib/services/claim/record-observation";
import { rescueExpiredLeases } from "@/lib/services/claim/rescue-expired-leases";
import { makeUser, parkInput, producer, worker } from "./fixtures";
import { openTestDb } from "./setup/test-db";

// finishAction writes in one guarded statement on the case as the claim left it, and when that view
// is out of date, runs the same statement again on the case read under the claim's row locks; both
// must leave exactly the same rows, and neither may write for a claim it lost.
const { db } = openTestDb();
const shop = producer("finish-shop");

async function claimedCase(stage: "polling" | "delivery", w = worker()) {
  const reviewer = await makeUser(db, ["reviewer", "operator"]);
  const { caseId } = await parkCase(db, shop, parkInput(stage));
  await approveCase(db, reviewer, caseId, {
    action: stage === "polling" ? "resume_poll" : "retry_delivery",
    evidence: "approved",
  });
  for (let round = 0; round < 20; round++) {
    const mine = (await claimActions(db, w, { max: 50 })).find((c) => c.caseId === caseId);
    if (mine) return { caseId, claimed: mine, w, reviewer };
  }
  throw new Error("the case was never claimed");
}

/** The claim's proof with its view of the case one version behind, as after someone changed the case. */
const behind = (claimed: ClaimedAction, workerId: string) =>
  proofOf({ ...claimed, caseVersion: claimed.caseVersion - 1 }, workerId);

const audits = (caseId: string) => db.auditEvent.findMany({ where: { caseId }, orderBy: { id: "asc" } });

async function rowsOf(caseId: string, claimed: ClaimedAction) {
  const kase = await db.case.findUniqueOrThrow({ where: { id: caseId } });
  const action = await db.recoveryAction.findUniqueOrThrow({ where: { id: claimed.actionId } });
  const last = (await audits(caseId)).at(-1);
  return {
    case: {
      stage: kase.stage,
      state: kase.state,
      version: kase.version,
      outcome: kase.outcome,
      resolved: !!kase.resolvedAt,
    },
    action: {
      status: action.status,
      outcome: action.outcome,
      leaseOwner: action.leaseOwner,
      leaseUntil: action.leaseUntil,
      finished: !!action.finishedAt,
      fencingToken: action.fencingToken,
    },
    audit: {
      kind: last?.kind,
      actorKind: last?.actorKind,
      before: last?.before,
      after: last?.after,
      evidence: last?.evidence,
    },
  };
}

describe("finishing a claimed action", () => {
  it("the finish on the claim's view and the one on the case read under lock leave the same rows", async () => {
    const fast = await claimedCase("delivery");
    const locked = await claimedCase("delivery");
    const transactions = vi.spyOn(db, "$transaction");
    expect(await finishAction(db, fast.w, proofOf(fast.claimed, fast.w.workerId), { kind: "resolved" })).toBe(
      "resolved",
    );
    expect(transactions).not.toHaveBeenCalled();
    expect(await finishAction(db, locked.w, behind(locked.claimed, locked.w.workerId), { kind: "resolved" })).toBe(
      "resolved",
    );
    expect(transactions).toHaveBeenCalledTimes(1);
    transactions.mockRestore();
    // The same rows once what differs between two cases (their ids and job ids) is named alike.
    const normalised = async ({ caseId, claimed }: typeof fast) => {
      const rows = await rowsOf(caseId, claimed);
      const kase = await db.case.findUniqueOrThrow({ where: { id: caseId } });
      const text = JSON.stringify(rows, (_, value) => (typeof value === "bigint" ? Number(value) : value));
      return JSON.parse(text.replaceAll(kase.providerJobId ?? "-", "JOB").replaceAll(claimed.actionId, "ACTION"));
    };
    const a = await normalised(fast);
    expect(a).toEqual(await normalised(locked));
    expect(a.case).toMatchObject({ state: "resolved", outcome: "recovered", resolved: true });
    expect(a.action).toMatchObject({ status: "succeeded", outcome: "resolved", leaseOwner: null, finished: true });
    expect(a.audit).toMatchObject({
      kind: "recovery_succeeded",
      before: { state: "claimed" },
      after: { state: "resolved" },
    });
  });

  it("a case changed since the claim is compared against as it is now", async () => {
    const { caseId, claimed, w, reviewer } = await claimedCase("polling");
    await assignCase(db, reviewer, caseId, { assigneeId: reviewer.userId });
    const outcome = await finishAction(db, w, proofOf(claimed, w.workerId), { kind: "unresolved", evidence: "no" });
    expect(outcome).toBe("parked");
    const last = (await audits(caseId)).at(-1);
    expect(last?.kind).toBe("recovery_unresolved");
    expect(last?.before).toMatchObject({ state: "claimed", version: claimed.caseVersion + 1 });
    expect(last?.after).toMatchObject({ state: "parked", version: claimed.caseVersion + 2 });
  });

  it("a finish only the current stage allows still applies after the claim's view went out of date", async () => {
    const { caseId, claimed, w } = await claimedCase("polling");
    const proof = proofOf(claimed, w.workerId);
    const completed: JobStatus = { kind: "completed", providerStatus: "succeeded", outputs: [], outputsRemoved: false };
    expect(await recordObservation(db, w, proof, completed)).toBe(true);
    // The claim saw `polling`, where nothing resolves; the case is in `delivery` now.
    expect(await finishAction(db, w, proof, { kind: "resolved" })).toBe("resolved");
    const row = await db.case.findUniqueOrThrow({ where: { id: caseId } });
    expect(row).toMatchObject({ stage: "delivery", state: "resolved", version: claimed.caseVersion + 2 });
  });

  it("a lost claim writes nothing, whatever view of the case it holds", async () => {
    const { caseId, claimed, w } = await claimedCase("delivery");
    await db.recoveryAction.update({
      where: { id: claimed.actionId },
      data: { leaseUntil: new Date(Date.now() - 1000) },
    });
    const before = (await audits(caseId)).length;
    expect(await finishAction(db, w, proofOf(claimed, w.workerId), { kind: "resolved" })).toBe("lost_claim");
    expect(await finishAction(db, w, behind(claimed, w.workerId), { kind: "resolved" })).toBe("lost_claim");
    expect((await audits(caseId)).length).toBe(before);

    expect(await rescueExpiredLeases(db, worker())).toBeGreaterThanOrEqual(1);
    const next = worker();
    const reclaimed = (await claimActions(db, next, { max: 50 })).find((c) => c.caseId === caseId);
    expect(reclaimed?.fencingToken).toBe(claimed.fencingToken + 1);
    const stale = await finishAction(db, w, proofOf(claimed, w.workerId), { kind: "resolved" });
    expect(stale).toBe("lost_claim");
    const action = await db.recoveryAction.findUniqueOrThrow({ where: { id: claimed.actionId } });
    expect(action).toMatchObject({ status: "claimed", leaseOwner: next.workerId });
    expect((await db.case.findUniqueOrThrow({ where: { id: caseId } })).state).toBe("claimed");
  });

  it("a finish the stage does not allow is refused and writes nothing", async () => {
    // Only a delivery copies outputs, so only a delivery can find them gone (a throttled delivery may
    // be rescheduled like a status check, decision 043).
    const { caseId, claimed, w } = await claimedCase("polling");
    const before = await rowsOf(caseId, claimed);
    const error = await finishAction(db, w, proofOf(claimed, w.workerId), {
      kind: "outputs_unavailable",
      evidence: "copying output 0 failed",
    }).catch((e: unknown) => e);
    expect((error as AppError).code).toBe("illegal_transition");
    expect(await rowsOf(caseId, claimed)).toEqual(before);
  });

  it("a heartbeat extends a held lease on the database clock, and only a held one", async () => {
    const { claimed, w } = await claimedCase("delivery");
    const before = await db.recoveryAction.findUniqueOrThrow({ where: { id: claimed.actionId } });
    expect(await extendLease(db, w, proofOf(claimed, w.workerId), 600)).toBe(true);
    const after = await db.recoveryAction.findUniqueOrThrow({ where: { id: claimed.actionId } });
    expect(after.leaseUntil?.getTime()).toBeGreaterThan((before.leaseUntil?.getTime() ?? 0) + 400_000);
    expect(await extendLease(db, worker(), { ...proofOf(claimed, w.workerId), workerId: "someone-else" })).toBe(false);
    const stale = { ...proofOf(claimed, w.workerId), fencingToken: claimed.fencingToken - 1 };
    expect(await extendLease(db, w, stale)).toBe(false);
    expect((await db.recoveryAction.findUniqueOrThrow({ where: { id: claimed.actionId } })).leaseUntil).toEqual(
      after.leaseUntil,
    );
  });
});
