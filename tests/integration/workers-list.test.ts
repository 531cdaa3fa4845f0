import { beforeAll, describe, expect, it } from "vitest";
import { AppError } from "@/lib/errors";
import type { UserActor } from "@/lib/services/access/actor";
import { recordWorkerHeartbeat } from "@/lib/services/alert/record-worker-heartbeat";
import { approveCase } from "@/lib/services/case/approve-case";
import { parkCase } from "@/lib/services/case/park-case";
import { claimActions, proofOf } from "@/lib/services/claim/claim-actions";
import { recordClaimFailure } from "@/lib/services/claim/record-claim-failure";
import { rescueExpiredLeases } from "@/lib/services/claim/rescue-expired-leases";
import { listWorkers } from "@/lib/services/worker/list-workers";
import { makeUser, parkInput, producer, worker } from "./fixtures";
import { openTestDb } from "./setup/test-db";

// Decision 064: the workers page reads each worker's heartbeat, leases, current action, last error and rescues.
const { db } = openTestDb();
const shop = producer("workers-shop");
let operator: UserActor;
let reviewer: UserActor;
beforeAll(async () => {
  operator = await makeUser(db, ["operator"]);
  reviewer = await makeUser(db, ["reviewer"]);
});

describe("the workers list", () => {
  it("shows a crashed worker's lease, its last error, and the worker that took the lease over", async () => {
    const input = parkInput("polling", { operationId: "order-workers-1" });
    const { caseId } = await parkCase(db, shop, input);
    await approveCase(db, reviewer, caseId, { action: "resume_poll", evidence: "check it again" });
    const crashed = worker("worker-host-a-101");
    const rescuer = worker("worker-host-b-202");
    await recordWorkerHeartbeat(db, crashed.workerId);
    await recordWorkerHeartbeat(db, rescuer.workerId);
    const [claim] = await claimActions(db, crashed, { max: 1, leaseSeconds: 60 });
    if (!claim) throw new Error("expected a claim");
    await recordClaimFailure(db, crashed, proofOf(claim, crashed.workerId), new Error("status check answered 502"));

    const before = await listWorkers(db, operator);
    const held = before.find((w) => w.workerId === crashed.workerId);
    expect(held).toMatchObject({
      leasesHeld: 1,
      leasesExpired: 0,
      lastError: "status check answered 502",
      current: { kind: "resume_poll", caseId, operationId: input.operationId, provider: "replicate" },
    });
    expect(held?.lastTickAt).toBeInstanceOf(Date);
    expect(held?.lastErrorAt).toBeInstanceOf(Date);

    // The lease runs out; the other worker's tick hands it back.
    await db.recoveryAction.update({
      where: { id: claim.actionId },
      data: { leaseUntil: new Date(Date.now() - 1000) },
    });
    expect((await listWorkers(db, operator)).find((w) => w.workerId === crashed.workerId)?.leasesExpired).toBe(1);
    expect(await rescueExpiredLeases(db, rescuer)).toBe(1);

    const after = await listWorkers(db, operator);
    expect(after.find((w) => w.workerId === crashed.workerId)).toMatchObject({
      leasesHeld: 0,
      current: null,
      leasesLost: 1,
      leasesRescued: 0,
    });
    expect(after.find((w) => w.workerId === rescuer.workerId)).toMatchObject({ leasesLost: 0, leasesRescued: 1 });
  });

  it("lists a worker holding a lease even without a heartbeat, and is for people who see every producer", async () => {
    const { caseId } = await parkCase(db, shop, parkInput("polling"));
    await approveCase(db, reviewer, caseId, { action: "resume_poll", evidence: "check it again" });
    const silent = worker("worker-without-beat");
    // It takes this case's action and the one the first test handed back.
    expect(await claimActions(db, silent, { max: 5, leaseSeconds: 60 })).toHaveLength(2);
    expect((await listWorkers(db, operator)).find((w) => w.workerId === silent.workerId)).toMatchObject({
      lastTickAt: null,
      leasesHeld: 2,
    });
    const scoped = { ...operator, producers: [shop.name] };
    await expect(listWorkers(db, scoped)).rejects.toBeInstanceOf(AppError);
    await expect(listWorkers(db, worker())).rejects.toMatchObject({ code: "forbidden" });
  });
});
