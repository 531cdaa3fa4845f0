import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { acceptFailure } from "@/lib/services/case/accept-failure";
import { approveCase } from "@/lib/services/case/approve-case";
import { parkCase } from "@/lib/services/case/park-case";
import { reconcileCase } from "@/lib/services/case/reconcile-case";
import { requestReplacement } from "@/lib/services/replacement/request-replacement";
import { makeUser, parkInput, producer } from "./fixtures";
import { providerRecovery } from "./helpers/provider-recovery";
import { tableCounts } from "./helpers/table-counts";
import { openTestDb } from "./setup/test-db";

// A Runway task recovered end to end: the worker reads the task API through the simulator, which
// refuses any call without the X-Runway-Version header, and copies the output from its delivery host.
process.env.WORKER_LOG = "0";
const { db } = openTestDb();
const shop = producer("runway-shop");
const h = providerRecovery(db, {
  provider: "runway",
  model: "gen4_turbo",
  evidence: "task id confirmed in Runway's request history",
});

describe("a Runway task, recovered through the simulator", () => {
  it("resume_poll: a SUCCEEDED task is copied, the hold settled and the case resolved, creating nothing", async () => {
    const { caseId, jobId } = await h.approvedCase("polling", { outcome: "succeeded" });
    expect(await h.outcomeOf(caseId)).toBe("resolved");
    expect(await db.case.findUniqueOrThrow({ where: { id: caseId } })).toMatchObject({
      stage: "delivery",
      state: "resolved",
      outcome: "delivered",
    });
    expect((await db.hold.findFirstOrThrow({ where: { caseId } })).status).toBe("settled");
    const observation = await db.providerObservation.findFirstOrThrow({ where: { caseId } });
    expect(observation).toMatchObject({ kind: "completed", providerStatus: "SUCCEEDED" });
    const asset = await db.asset.findFirstOrThrow({ where: { caseId } });
    expect((await readFile(path.join(h.assetDir, asset.storageKey))).length).toBe(32 * 1024);
    expect(h.sim.state.requests({ pathIncludes: `/runway/v1/tasks/${jobId}` }).length).toBeGreaterThan(0);
    expect(h.sim.state.stats().creates).toMatchObject({ runway: 0, total: 0 });
  });

  it("resume_poll: a task still waiting (PENDING or THROTTLED at Runway) is checked again later", async () => {
    const { caseId } = await h.approvedCase("polling", { outcome: "stuck", queuedMs: 3_600_000 });
    expect(await h.outcomeOf(caseId)).toBe("rescheduled");
    const observation = await db.providerObservation.findFirstOrThrow({ where: { caseId } });
    expect(observation).toMatchObject({ kind: "running", providerStatus: "PENDING" });
  });

  it("resume_poll: a FAILED task parks as generation_failed with Runway's reason", async () => {
    const { caseId } = await h.approvedCase("polling", { outcome: "failed", error: "The output was flagged." });
    await h.outcomeOf(caseId);
    expect(await db.case.findUniqueOrThrow({ where: { id: caseId } })).toMatchObject({
      stage: "generation_failed",
      state: "parked",
    });
  });

  it("resume_poll: a 500 then a 429 with Retry-After are ridden out, the answer still read", async () => {
    const { caseId, jobId } = await h.approvedCase("polling", { outcome: "succeeded" });
    h.sim.state.faults.add({
      match: { provider: "runway", jobId },
      fault: { type: "http_error", status: 500 },
      times: 1,
    });
    h.sim.state.faults.add({
      match: { jobId, route: "status" },
      fault: { type: "rate_limit", retryAfterSeconds: 1 },
      times: 1,
    });
    expect(await h.outcomeOf(caseId)).toBe("resolved");
  });

  it("resume_poll: an unknown task id is parked with the evidence, never taken as a failure", async () => {
    const reviewer = await makeUser(db, ["reviewer"]);
    const { caseId } = await parkCase(
      db,
      shop,
      parkInput("polling", { provider: "runway", providerJobId: "00000000-0000-4000-8000-000000000000" }),
    );
    await approveCase(db, reviewer, caseId, { action: "resume_poll", evidence: "go" });
    await h.outcomeOf(caseId);
    expect(await db.case.findUniqueOrThrow({ where: { id: caseId } })).toMatchObject({
      stage: "polling",
      state: "parked",
    });
  });

  it("retry_delivery: the output is copied from the task's fresh URL and published, creating nothing", async () => {
    const { caseId } = await h.approvedCase("delivery", { outcome: "succeeded" });
    expect(await h.outcomeOf(caseId)).toBe("resolved");
    const published = await db.asset.findMany({ where: { caseId, publishedAt: { not: null } } });
    expect(published).toHaveLength(1);
    expect(h.sim.state.stats().creates).toMatchObject({ runway: 0, total: 0 });
  });

  it("retry_delivery: a truncated download is caught and nothing is published", async () => {
    const { caseId, jobId } = await h.approvedCase("delivery", { outcome: "succeeded" });
    h.sim.state.faults.add({ match: { jobId, route: "download" }, fault: { type: "truncate" }, times: 1 });
    expect(await h.outcomeOf(caseId)).toBe("parked");
    expect(await db.asset.count({ where: { caseId, publishedAt: { not: null } } })).toBe(0);
    expect(h.sim.state.stats().creates.total).toBe(0);
    expect(h.sim.state.cancelCount()).toBe(0);
  });

  it("a 'no job exists' verdict cannot lead to a replacement: Runway cannot be searched before paying again", async () => {
    const reviewer = await makeUser(db, ["reviewer"]);
    const { caseId } = await parkCase(
      db,
      shop,
      parkInput("submission_uncertain", { provider: "runway", model: "gen4_turbo" }),
    );
    await reconcileCase(
      db,
      reviewer,
      caseId,
      { verdict: "no_job", evidence: "nothing in Runway's usage export for the window" },
      { now: new Date("2100-01-01T00:00:00Z") },
    );
    expect((await db.case.findUniqueOrThrow({ where: { id: caseId } })).stage).toBe("generation_failed");
    const before = await tableCounts(db);
    await expect(
      requestReplacement(db, reviewer, caseId, { evidence: "customer still waiting" }),
    ).rejects.toMatchObject({
      code: "provider_cannot_be_searched",
      status: 409,
      message: expect.stringContaining("Accept the failure instead"),
    });
    expect(await tableCounts(db)).toEqual(before);
    // The case's way out stays open.
    await acceptFailure(db, reviewer, caseId, { evidence: "no replacement without a search" });
    expect((await db.case.findUniqueOrThrow({ where: { id: caseId } })).state).toBe("resolved");
  });
});
