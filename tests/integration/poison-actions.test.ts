import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { counterSamples } from "@/lib/metrics/counters";
import { approveCase } from "@/lib/services/case/approve-case";
import { parkCase } from "@/lib/services/case/park-case";
import { claimActions } from "@/lib/services/claim/claim-actions";
import { rescueExpiredLeases } from "@/lib/services/claim/rescue-expired-leases";
import { overviewStats } from "@/lib/services/overview/overview-stats";
import type { AssetStorage } from "@/lib/storage/types";
import { runTick } from "@/lib/worker/run-tick";
import type { WorkerContext } from "@/lib/worker/worker-context";
import { type RunningSimulator, startSimulator } from "@/verification/simulator";
import { makeUser, parkInput, producer, worker } from "./fixtures";
import { testWorkerContext } from "./helpers/worker-context";
import { openTestDb } from "./setup/test-db";

process.env.WORKER_LOG = "0";
const { db } = openTestDb();
const shop = producer("poison-shop");
let sim: RunningSimulator;
let ctx: WorkerContext;
const POISON_CLAIMS = 3;

beforeAll(async () => {
  sim = await startSimulator({ port: 0, timings: { queuedMs: 0, runningMs: 0, outputBytes: 16 * 1024 } });
  ctx = await testWorkerContext(db, sim.url, { poisonClaims: POISON_CLAIMS });
});
afterAll(() => sim.stop());

async function approvedDelivery(operationId?: string) {
  const job = sim.state.seedJob({ provider: "fal", outcome: "succeeded" });
  const reviewer = await makeUser(db, ["reviewer"]);
  const { caseId } = await parkCase(
    db,
    shop,
    parkInput("delivery", {
      ...(operationId
        ? { operationId, hold: { holdId: `hold-${operationId}`, amountMicros: 1, currency: "USD" } }
        : {}),
      provider: job.provider,
      model: job.model,
      providerJobId: job.id,
    }),
  );
  const { actionId } = await approveCase(db, reviewer, caseId, { action: "retry_delivery", evidence: "copy it" });
  return { caseId, actionId };
}

/** Ticks until the case leaves the queue, expiring each claim's lease as a crashed worker would. */
async function runUntilSettled(context: WorkerContext, caseId: string, actionId: string) {
  for (let round = 0; round < 10; round++) {
    await runTick(context, worker(), { maxTasks: 5 });
    const row = await db.case.findUniqueOrThrow({ where: { id: caseId } });
    if (row.state === "parked" || row.state === "resolved") return round + 1;
    await db.recoveryAction.update({ where: { id: actionId }, data: { leaseUntil: new Date(Date.now() - 1000) } });
  }
  throw new Error("the action never left the queue");
}

const poisonCount = async () =>
  (await counterSamples())
    .filter((s) => s.name === "recovery_poison_actions_total")
    .reduce((sum, s) => sum + s.value, 0);

describe("poison actions", () => {
  it('an operation ID of ".." is delivered in one claim', async () => {
    const { caseId, actionId } = await approvedDelivery("..");
    expect(await runUntilSettled(ctx, caseId, actionId)).toBe(1);
    expect(await db.case.findUniqueOrThrow({ where: { id: caseId } })).toMatchObject({ state: "resolved" });
    expect(await db.recoveryAction.findUniqueOrThrow({ where: { id: actionId } })).toMatchObject({
      status: "succeeded",
      claimCount: 1,
    });
    await expectLastAttemptOf(caseId, actionId);
  });

  it("a store that refuses for good (EACCES) ends the action after one claim, unresolved with evidence", async () => {
    const refusing: AssetStorage = {
      ...ctx.storage,
      begin: async () => {
        throw Object.assign(new Error("EACCES: permission denied, open '/assets/x'"), { code: "EACCES" });
      },
    };
    const { caseId, actionId } = await approvedDelivery();
    expect(await runUntilSettled({ ...ctx, storage: refusing }, caseId, actionId)).toBe(1);
    expect(await db.case.findUniqueOrThrow({ where: { id: caseId } })).toMatchObject({
      stage: "delivery",
      state: "parked",
    });
    const action = await db.recoveryAction.findUniqueOrThrow({ where: { id: actionId } });
    expect(action).toMatchObject({ status: "unresolved", claimCount: 1, failures: [] });
    const [event] = await db.auditEvent.findMany({ where: { caseId, kind: "recovery_unresolved" } });
    expect(JSON.stringify(event?.evidence)).toContain("refused the write (EACCES)");
    expect(await db.asset.count({ where: { caseId } })).toBe(0);
  });

  it("a store that fails every time parks the case after N claims, with each failure as evidence", async () => {
    const flaky: AssetStorage = {
      ...ctx.storage,
      begin: async () => {
        throw new Error("socket hang up");
      },
    };
    const before = await poisonCount();
    const reviewer = await makeUser(db, ["reviewer"]);
    const overviewBefore = await overviewStats(db, reviewer, { alertWindowMinutes: 60, alertThreshold: 5 });
    const { caseId, actionId } = await approvedDelivery();
    expect(await runUntilSettled({ ...ctx, storage: flaky }, caseId, actionId)).toBe(POISON_CLAIMS + 1);

    expect(await db.case.findUniqueOrThrow({ where: { id: caseId } })).toMatchObject({
      stage: "delivery",
      state: "parked",
    });
    const action = await db.recoveryAction.findUniqueOrThrow({ where: { id: actionId } });
    expect(action).toMatchObject({ status: "unresolved", outcome: "poison", claimCount: POISON_CLAIMS });
    await expectLastAttemptOf(caseId, actionId);
    const [event] = await db.auditEvent.findMany({ where: { caseId, kind: "poison_parked" } });
    const evidence = event?.evidence as { failures: { fencingToken: number; error: string }[] };
    expect(evidence.failures.map((f) => [f.fencingToken, f.error])).toEqual([
      [1, "socket hang up"],
      [2, "socket hang up"],
      [3, "socket hang up"],
    ]);
    expect(event?.after).toMatchObject({ stage: "delivery", state: "parked" });
    expect((await poisonCount()) - before).toBe(1);
    const overview = await overviewStats(db, reviewer, { alertWindowMinutes: 60, alertThreshold: 5 });
    expect(overview.poisonParked24h - overviewBefore.poisonParked24h).toBe(1);
    // Parked for good: further ticks claim nothing of it.
    await runTick({ ...ctx, storage: flaky }, worker(), { maxTasks: 5 });
    expect((await db.recoveryAction.findUniqueOrThrow({ where: { id: actionId } })).claimCount).toBe(POISON_CLAIMS);
  });

  it("claims lost to a crash (no failure recorded) count through the lease rescue", async () => {
    const { caseId, actionId } = await approvedDelivery();
    const crashed = worker("crashed");
    for (let claim = 0; claim < POISON_CLAIMS; claim++) {
      if (claim > 0) await rescueExpiredLeases(db, crashed);
      const claimed = await claimActions(db, crashed, { max: 50, poisonClaims: POISON_CLAIMS });
      expect(claimed.map((c) => c.actionId)).toContain(actionId);
      await db.recoveryAction.update({ where: { id: actionId }, data: { leaseUntil: new Date(Date.now() - 1000) } });
    }
    await runTick(ctx, worker(), { maxTasks: 5 });
    expect(await db.case.findUniqueOrThrow({ where: { id: caseId } })).toMatchObject({ state: "parked" });
    const [event] = await db.auditEvent.findMany({ where: { caseId, kind: "poison_parked" } });
    const evidence = event?.evidence as { failures: { error: string }[] };
    expect(evidence.failures).toHaveLength(POISON_CLAIMS);
    expect(evidence.failures.every((f) => f.error.includes("lease ran out"))).toBe(true);
  });
});

/** The case's last attempt (the queue's sort, decision 069) is when this action ended, written with it. */
async function expectLastAttemptOf(caseId: string, actionId: string) {
  const action = await db.recoveryAction.findUniqueOrThrow({ where: { id: actionId } });
  const kase = await db.case.findUniqueOrThrow({ where: { id: caseId } });
  expect(action.finishedAt).not.toBeNull();
  expect(kase.lastAttemptAt?.toISOString()).toBe(action.finishedAt?.toISOString());
}
