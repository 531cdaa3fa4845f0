import { describe, expect, it } from "vitest";
import { env } from "@/lib/env";
import { createLogger } from "@/lib/log/logger";
import { processShared } from "@/lib/process-shared";
import { approveCase } from "@/lib/services/case/approve-case";
import { getCase } from "@/lib/services/case/get-case";
import { runRetention } from "@/lib/services/retention/run-retention";
import { makeUser, worker } from "./fixtures";
import { providerRecovery } from "./helpers/provider-recovery";
import { dumpAllRows } from "./helpers/tables";
import { openTestDb } from "./setup/test-db";

// The saving step (decision 043): the output URLs a completion handed out are kept whole, signed
// query included, and fetched again until they expire, without asking the provider; nothing shows
// the signed query. A throttled status read during a delivery waits as a throttled poll does.

// Every log line of this process, as the worker writes it (its step lines are on here).
const logLines: string[] = [];
processShared("logger", () =>
  createLogger({ level: "trace", format: "json" }, { write: (line: string) => void logLines.push(line) }),
);
delete process.env.WORKER_LOG;

const { db } = openTestDb();
const recovery = providerRecovery(db, { provider: "replicate", model: "omni-flash-720p", evidence: "go" });

const statusReads = (jobId: string) =>
  recovery.sim.state.requests({ method: "GET", pathIncludes: `/predictions/${jobId}` });
const downloads = (jobId: string) =>
  recovery.sim.state.requests({ method: "GET", pathIncludes: `/delivery/replicate/${jobId}/` });
const outcomeOf = (caseId: string) => recovery.outcomeOf(caseId);

async function approveDelivery(caseId: string) {
  const reviewer = await makeUser(db, ["reviewer"]);
  await approveCase(db, reviewer, caseId, { action: "retry_delivery", evidence: "go" });
  return reviewer;
}

/**
 * A completed job whose outputs the simulator serves only under a signed URL, seen completed by a
 * status check whose copy then failed (a corrupted body): the case waits in delivery with the URL kept.
 */
async function deliveryAfterFailedCopy() {
  const { caseId, jobId } = await recovery.approvedCase("polling", { signedOutputs: true });
  recovery.sim.state.faults.add({ match: { jobId, route: "download" }, fault: { type: "corrupt" }, times: 1 });
  expect(await outcomeOf(caseId)).toBe("parked");
  expect(await db.case.findUniqueOrThrow({ where: { id: caseId } })).toMatchObject({
    stage: "delivery",
    state: "parked",
  });
  expect(statusReads(jobId)).toHaveLength(1);
  return { caseId, jobId };
}

describe("the saving step reuses the output URL its completion handed out", () => {
  it("saves a completed job's signed output without a second status read, and forgets the URL once delivered", async () => {
    const { caseId, jobId } = await deliveryAfterFailedCopy();
    const [kept] = await db.outputUrl.findMany({ where: { caseId } });
    expect(kept?.url).toMatch(/\?expires=\d+&signature=[0-9a-f]{64}$/);
    expect(kept?.expiresAt.getTime()).toBeGreaterThan(Date.now() + 30 * 60_000);

    await approveDelivery(caseId);
    expect(await outcomeOf(caseId)).toBe("resolved");
    expect(statusReads(jobId)).toHaveLength(1);
    expect(downloads(jobId)).toHaveLength(2);
    expect(await db.asset.count({ where: { caseId, publishedAt: { not: null } } })).toBe(1);
    expect(await db.outputUrl.count({ where: { caseId } })).toBe(0);
    // Without its query the file is refused: evidence's copy of the URL could never have fetched it.
    expect((await fetch(String(kept?.url).split("?")[0] as string)).status).toBe(403);
  });

  it("asks the provider again once the kept URL expires, and saves from its fresh answer", async () => {
    const { caseId, jobId } = await deliveryAfterFailedCopy();
    await db.outputUrl.updateMany({ where: { caseId }, data: { expiresAt: new Date(Date.now() - 1_000) } });
    await approveDelivery(caseId);
    expect(await outcomeOf(caseId)).toBe("resolved");
    expect(statusReads(jobId)).toHaveLength(2);
    expect(await db.asset.count({ where: { caseId, publishedAt: { not: null } } })).toBe(1);
  });

  it("a kept URL the host refuses is forgotten and the provider asked again, never read as outputs gone", async () => {
    const { caseId, jobId } = await deliveryAfterFailedCopy();
    const [kept] = await db.outputUrl.findMany({ where: { caseId } });
    const lapsed = String(kept?.url).replace(/signature=[0-9a-f]+/, `signature=${"0".repeat(64)}`);
    await db.outputUrl.updateMany({ where: { caseId }, data: { url: lapsed } });
    await approveDelivery(caseId);
    expect(await outcomeOf(caseId)).toBe("rescheduled");
    expect(await db.case.findUniqueOrThrow({ where: { id: caseId } })).toMatchObject({
      stage: "delivery",
      state: "ready",
      outputsUnavailableAt: null,
    });
    expect(statusReads(jobId)).toHaveLength(1);
    expect(await outcomeOf(caseId)).toBe("resolved");
    expect(statusReads(jobId)).toHaveLength(2);
  });

  it("retention removes kept URLs past their expiry and keeps the others", async () => {
    const { caseId: expiredCase } = await deliveryAfterFailedCopy();
    const { caseId: liveCase } = await deliveryAfterFailedCopy();
    await db.outputUrl.updateMany({
      where: { caseId: expiredCase },
      data: { expiresAt: new Date(Date.now() - 1_000) },
    });
    await runRetention(db, recovery.ctx.storage, worker(), {
      now: new Date(),
      deadline: Date.now() + 10_000,
      maxBatches: 1,
    });
    expect(await db.outputUrl.count({ where: { caseId: expiredCase } })).toBe(0);
    expect(await db.outputUrl.count({ where: { caseId: liveCase } })).toBe(1);
  });

  it("the signed query never reaches the timeline, evidence, observations, the case's answer or a log line", async () => {
    const { caseId } = await deliveryAfterFailedCopy();
    const [kept] = await db.outputUrl.findMany({ where: { caseId } });
    const signature = new URL(String(kept?.url)).searchParams.get("signature") as string;
    expect(signature).toMatch(/^[0-9a-f]{64}$/);
    const reviewer = await approveDelivery(caseId);
    expect(await outcomeOf(caseId)).toBe("resolved");

    const bare = String(kept?.url).split("?")[0] as string;
    const stored = (await dumpAllRows(db)).split("\n").filter((line) => !line.startsWith("output_urls: "));
    // Evidence keeps the URL, without its query.
    expect(stored.some((line) => line.startsWith("provider_observations: ") && line.includes(bare))).toBe(true);
    expect(stored.filter((line) => line.includes(signature))).toEqual([]);
    expect(JSON.stringify(await getCase(db, reviewer, caseId, env()))).not.toContain(signature);
    expect(logLines.some((line) => line.includes(caseId))).toBe(true);
    expect(logLines.filter((line) => line.includes(signature))).toEqual([]);
  });
});

describe("a throttled status read during delivery", () => {
  it("waits for the provider's Retry-After like a throttled poll, then the delivery resolves instead of parking", async () => {
    const { caseId, jobId } = await recovery.approvedCase("delivery", {});
    // Longer than the adapter waits within a call, so the wait is handed back to the claim.
    recovery.sim.state.faults.add({
      match: { jobId, route: "status" },
      fault: { type: "rate_limit", retryAfterSeconds: 120 },
      times: 1,
    });
    const before = Date.now();
    expect(await outcomeOf(caseId)).toBe("rescheduled");
    expect(await db.case.findUniqueOrThrow({ where: { id: caseId } })).toMatchObject({
      stage: "delivery",
      state: "ready",
    });
    const action = await db.recoveryAction.findFirstOrThrow({ where: { caseId } });
    expect(action.status).toBe("ready");
    expect(action.readyAt.getTime()).toBeGreaterThanOrEqual(before + 120_000);
    const timeline = await db.auditEvent.findMany({ where: { caseId, kind: "check_rescheduled" } });
    expect(JSON.stringify(timeline.map((e) => e.evidence))).toContain("provider throttled the check");
    // Not claimed again before its wait is over.
    expect(await outcomeOf(caseId)).toBeUndefined();

    // The wait is over (moved, not slept through): the same approval's delivery goes on.
    await db.recoveryAction.updateMany({ where: { caseId }, data: { readyAt: new Date(Date.now() - 1_000) } });
    expect(await outcomeOf(caseId)).toBe("resolved");
    expect(statusReads(jobId)).toHaveLength(2);
    expect(await db.case.findUniqueOrThrow({ where: { id: caseId } })).toMatchObject({ state: "resolved" });
  });
});
