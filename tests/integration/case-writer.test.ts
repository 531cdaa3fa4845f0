import { describe, expect, it } from "vitest";
import { counterSamples } from "@/lib/metrics/counters";
import { approveCase } from "@/lib/services/case/approve-case";
import { parkCase } from "@/lib/services/case/park-case";
import { type ClaimedAction, claimActions, proofOf } from "@/lib/services/claim/claim-actions";
import { finishAction } from "@/lib/services/claim/finish-action";
import { rescueExpiredLeases } from "@/lib/services/claim/rescue-expired-leases";
import { makeUser, parkInput, producer, worker } from "./fixtures";
import { openTestDb } from "./setup/test-db";

// Decision 003: every case change goes through the case writer, so the reviewer's path, the
// worker's single statements and the batch statements write the same audit snapshots, set the
// same timestamps and count conflicts the same way.
const { db } = openTestDb();
const shop = producer("writer-shop");

const conflicts = async (command: string) =>
  (await counterSamples())
    .filter((s) => s.name === "recovery_case_conflicts_total" && s.labels.command === command)
    .reduce((sum, s) => sum + s.value, 0);

async function claimed(w = worker()): Promise<{ caseId: string; claim: ClaimedAction }> {
  const reviewer = await makeUser(db, ["reviewer"]);
  const { caseId } = await parkCase(db, shop, parkInput("delivery"));
  await approveCase(db, reviewer, caseId, { action: "retry_delivery", evidence: "copy again" });
  for (let round = 0; round < 20; round++) {
    const claim = (await claimActions(db, w, { max: 50 })).find((c) => c.caseId === caseId);
    if (claim) return { caseId, claim };
  }
  throw new Error("never claimed");
}

const events = (caseId: string) => db.auditEvent.findMany({ where: { caseId }, orderBy: { id: "asc" } });

describe("the case writer", () => {
  it("gives a claim and a rescue the same audit snapshot as every other change, job included", async () => {
    const w = worker();
    const { caseId, claim } = await claimed(w);
    const kase = await db.case.findUniqueOrThrow({ where: { id: caseId } });
    await db.recoveryAction.update({ where: { id: claim.actionId }, data: { leaseUntil: new Date(Date.now() - 1) } });
    expect(await rescueExpiredLeases(db, w)).toBeGreaterThanOrEqual(1);
    const [approved, claimedEvent, rescued] = (await events(caseId)).slice(-3);
    const job = kase.providerJobId;
    expect(approved?.after).toEqual({ stage: "delivery", state: "ready", providerJobId: job, version: 2 });
    expect(claimedEvent).toMatchObject({
      kind: "claimed",
      before: { stage: "delivery", state: "ready", providerJobId: job, version: 2 },
      after: { stage: "delivery", state: "claimed", providerJobId: job, version: 3 },
    });
    expect(rescued).toMatchObject({
      kind: "lease_rescued",
      before: { stage: "delivery", state: "claimed", providerJobId: job, version: 3 },
      after: { stage: "delivery", state: "ready", providerJobId: job, version: 4 },
    });
  });

  it("counts a worker's stale compare-and-set as a conflict, as it counts the reviewer's lost race", async () => {
    const w = worker();
    const { caseId, claim } = await claimed(w);
    const before = await conflicts("finish_resolved");
    const stale = proofOf({ ...claim, caseVersion: claim.caseVersion - 1 }, w.workerId);
    expect(await finishAction(db, w, stale, { kind: "resolved" })).toBe("resolved");
    expect(await conflicts("finish_resolved")).toBe(before + 1);
    const kase = await db.case.findUniqueOrThrow({ where: { id: caseId } });
    expect(kase).toMatchObject({ state: "resolved", outcome: "recovered" });
    expect(kase.resolvedAt).toBeInstanceOf(Date);
  });
});
