import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { approveCase } from "@/lib/services/case/approve-case";
import { parkCase } from "@/lib/services/case/park-case";
import { claimActions } from "@/lib/services/claim/claim-actions";
import { extendLease } from "@/lib/services/claim/extend-lease";
import { finishAction } from "@/lib/services/claim/finish-action";
import { rescueExpiredLeases } from "@/lib/services/claim/rescue-expired-leases";
import { makeUser, parkInput, producer, worker } from "./fixtures";
import { RacePool, type RaceResult } from "./helpers/race-pool";
import { seedReadyActions } from "./helpers/seed";
import { openTestDb } from "./setup/test-db";

// Rule 4 across real OS processes: each child has its own connection pool, so only the database
// can keep two workers from getting the same action.
const { db, url } = openTestDb();
const shop = producer();
const PROCESSES = 16;
let pool: RacePool;

beforeAll(async () => {
  pool = await RacePool.start(PROCESSES, url);
}, 240_000);
afterAll(async () => {
  await pool?.close();
});

function only<T extends RaceResult["mode"]>(results: RaceResult[], mode: T): Extract<RaceResult, { mode: T }>[] {
  const errors = results.filter((r) => r.mode === "error");
  expect(errors).toEqual([]);
  return results.filter((r): r is Extract<RaceResult, { mode: T }> => r.mode === mode);
}

describe("claims across processes", () => {
  it("16 processes drain 1,000 ready actions: each claimed exactly once, one audit event each", async () => {
    const reviewer = await makeUser(db, ["reviewer"]);
    const seeded = await seedReadyActions(db, { count: 1000, reviewerId: reviewer.userId, tag: "bulk" });
    expect(new Set(seeded).size).toBe(1000);

    const results = only(
      await pool.run(pool.pids.map((_, i) => ({ mode: "claim" as const, workerId: `proc-${i}`, max: 5 }))),
      "claim",
    );
    expect(new Set(results.map((r) => r.pid)).size).toBe(PROCESSES);
    const claimedIds = results.flatMap((r) => r.actionIds);
    expect(claimedIds).toHaveLength(1000);
    expect(new Set(claimedIds)).toEqual(new Set(seeded));
    // More than one process must have taken part, or this proved nothing about concurrency.
    expect(results.filter((r) => r.actionIds.length > 0).length).toBeGreaterThan(1);

    const ownerOf = new Map(results.flatMap((r, i) => r.actionIds.map((id) => [id, `proc-${i}`] as const)));
    const rows = await db.recoveryAction.findMany({ where: { id: { in: seeded } } });
    expect(rows).toHaveLength(1000);
    for (const row of rows) {
      expect(row.status).toBe("claimed");
      expect(row.claimCount).toBe(1);
      expect(row.fencingToken).toBe(1n);
      expect(row.leaseOwner).toBe(ownerOf.get(row.id));
    }
    const cases = await db.case.groupBy({
      by: ["state", "version"],
      where: { id: { in: rows.map((r) => r.caseId) } },
      _count: true,
    });
    expect(cases).toEqual([{ state: "claimed", version: 3, _count: 1000 }]);

    const audit = await db.$queryRaw<{ action_id: string; events: number }[]>`
      SELECT evidence->>'actionId' AS action_id, count(*)::int AS events
      FROM audit_events WHERE kind = 'claimed' GROUP BY 1`;
    expect(audit).toHaveLength(1000);
    expect(new Set(audit.map((a) => a.action_id))).toEqual(new Set(seeded));
    expect(audit.every((a) => a.events === 1)).toBe(true);
  }, 60_000);

  it("16 processes approving the same parked polling case create one action and all get its ID", async () => {
    const reviewer = await makeUser(db, ["reviewer"]);
    const { caseId } = await parkCase(db, shop, parkInput("polling"));

    const results = only(
      await pool.run(pool.pids.map(() => ({ mode: "approve" as const, caseId, reviewer, action: "resume_poll" }))),
      "approve",
    );
    expect(results).toHaveLength(PROCESSES);
    const actionIds = new Set(results.map((r) => r.actionId));
    expect(actionIds.size).toBe(1);
    expect(results.filter((r) => r.created)).toHaveLength(1);

    const actions = await db.recoveryAction.findMany({ where: { caseId } });
    expect(actions.map((a) => a.id)).toEqual([...actionIds]);
    expect(actions[0]?.status).toBe("ready");
    expect(await db.decision.count({ where: { caseId } })).toBe(1);
    const row = await db.case.findUniqueOrThrow({ where: { id: caseId } });
    expect({ state: row.state, version: row.version }).toEqual({ state: "ready", version: 2 });
    expect(await db.auditEvent.count({ where: { caseId, kind: "approved" } })).toBe(1);
  }, 60_000);

  it("a worker whose expired lease was re-claimed by another gets lost_claim and changes nothing", async () => {
    const reviewer = await makeUser(db, ["reviewer"]);
    const { caseId } = await parkCase(db, shop, parkInput("delivery"));
    const { actionId } = await approveCase(db, reviewer, caseId, { action: "retry_delivery", evidence: "asset found" });

    const first = worker();
    const claimedByFirst = await claimActions(db, first, { max: 1000 });
    const mine = claimedByFirst.find((c) => c.actionId === actionId);
    if (!mine) throw new Error("the first worker did not get the action");
    expect(mine.fencingToken).toBe(1);
    const stale = { actionId, workerId: first.workerId, fencingToken: mine.fencingToken };

    // The first worker stalls past its lease; the rescue hands the action back to the queue.
    await db.$executeRaw`UPDATE recovery_actions SET lease_until = now() - interval '1 second' WHERE id = ${actionId}::uuid`;
    expect(await extendLease(db, first, stale)).toBe(false);
    expect(await rescueExpiredLeases(db, worker())).toBeGreaterThanOrEqual(1);
    expect((await db.case.findUniqueOrThrow({ where: { id: caseId } })).state).toBe("ready");

    const second = worker();
    const reclaimed = (await claimActions(db, second, { max: 1000 })).find((c) => c.actionId === actionId);
    if (!reclaimed) throw new Error("the second worker did not get the action");
    expect(reclaimed.fencingToken).toBe(2);

    const snapshot = async () => ({
      action: await db.recoveryAction.findUniqueOrThrow({ where: { id: actionId } }),
      case: await db.case.findUniqueOrThrow({ where: { id: caseId } }),
      audit: await db.auditEvent.count({ where: { caseId } }),
      allAudit: await db.auditEvent.count(),
    });
    const before = await snapshot();
    expect(before.action).toMatchObject({ status: "claimed", leaseOwner: second.workerId, fencingToken: 2n });

    for (const result of [
      { kind: "resolved" as const },
      { kind: "unresolved" as const, evidence: "storage unavailable" },
    ]) {
      expect(await finishAction(db, first, stale, result)).toBe("lost_claim");
    }
    // Quoting the new token does not help the old owner: the lease now belongs to someone else.
    expect(await finishAction(db, first, { ...stale, fencingToken: 2 }, { kind: "resolved" })).toBe("lost_claim");
    expect(await snapshot()).toEqual(before);

    // The current holder is unaffected and can still finish.
    const proof = { actionId, workerId: second.workerId, fencingToken: reclaimed.fencingToken };
    expect(await finishAction(db, second, proof, { kind: "resolved" })).toBe("resolved");
    expect((await db.case.findUniqueOrThrow({ where: { id: caseId } })).state).toBe("resolved");
  });

  it("another authenticated worker cannot finish or extend a claim by quoting its owner's ID and token", async () => {
    const reviewer = await makeUser(db, ["reviewer"]);
    const { caseId } = await parkCase(db, shop, parkInput("delivery"));
    const { actionId } = await approveCase(db, reviewer, caseId, { action: "retry_delivery", evidence: "asset found" });
    const owner = worker();
    const claim = (await claimActions(db, owner, { max: 1000 })).find((c) => c.actionId === actionId);
    if (!claim) throw new Error("not claimed");
    const before = await db.recoveryAction.findUniqueOrThrow({ where: { id: actionId } });

    // Worker IDs are visible in the audit log and fencing tokens count 1, 2, 3...: neither is a secret.
    const intruder = worker();
    const quoted = { actionId, workerId: owner.workerId, fencingToken: claim.fencingToken };
    const extended = await extendLease(db, intruder, quoted, 3600).catch((e: { code?: string }) => e.code);
    const finished = await finishAction(db, intruder, quoted, { kind: "resolved" }).catch(
      (e: { code?: string }) => e.code,
    );
    expect([false, "forbidden"]).toContain(extended);
    expect(["lost_claim", "forbidden"]).toContain(finished);
    expect(await db.recoveryAction.findUniqueOrThrow({ where: { id: actionId } })).toEqual(before);
    expect((await db.case.findUniqueOrThrow({ where: { id: caseId } })).state).toBe("claimed");
  });
});
