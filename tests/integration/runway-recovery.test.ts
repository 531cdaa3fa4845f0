import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { simulatorAdapters } from "@/lib/providers";
import { acceptFailure } from "@/lib/services/case/accept-failure";
import { approveCase } from "@/lib/services/case/approve-case";
import { parkCase } from "@/lib/services/case/park-case";
import { reconcileCase } from "@/lib/services/case/reconcile-case";
import { requestReplacement } from "@/lib/services/replacement/request-replacement";
import { localStorage } from "@/lib/storage/local-storage";
import { runTick } from "@/lib/worker/run-tick";
import type { WorkerContext } from "@/lib/worker/worker-context";
import { type JobSpec, type RunningSimulator, startSimulator } from "@/verification/simulator";
import { makeUser, parkInput, producer, worker } from "./fixtures";
import { tableCounts } from "./helpers/table-counts";
import { TEST_RECEIVERS } from "./helpers/worker-context";
import { openTestDb } from "./setup/test-db";

// A Runway task recovered end to end: the worker reads the task API through the simulator, which
// refuses any call without the X-Runway-Version header, and copies the output from its delivery host.
process.env.WORKER_LOG = "0";
const { db } = openTestDb();
let sim: RunningSimulator;
let ctx: WorkerContext;
let assetDir: string;
const shop = producer("runway-shop");

beforeAll(async () => {
  sim = await startSimulator({
    port: 0,
    token: "sim-token",
    timings: { queuedMs: 0, runningMs: 0, outputBytes: 32 * 1024 },
  });
  assetDir = await mkdtemp(path.join(tmpdir(), "runway-assets-"));
  ctx = {
    db,
    adapters: simulatorAdapters(
      sim.url,
      { retry: { maxAttempts: 3, baseDelayMs: 20, maxDelayMs: 200, perAttemptTimeoutMs: 2_000 } },
      "sim-token",
    ),
    storage: localStorage(assetDir),
    budgetMs: 15_000,
    leaseSeconds: 30,
    pollBaseSeconds: 30,
    pollMaxSeconds: 600,
    concurrency: 2,
    maxDownloadBytes: 10 * 1024 * 1024,
    random: () => 0.5,
    webhookAllowList: TEST_RECEIVERS,
  };
});
afterAll(() => sim.stop());

async function approvedCase(stage: "polling" | "delivery", job: Omit<JobSpec, "provider">) {
  const seeded = sim.state.seedJob({ provider: "runway", model: "gen4_turbo", ...job });
  const reviewer = await makeUser(db, ["reviewer"]);
  const { caseId } = await parkCase(
    db,
    shop,
    parkInput(stage, { provider: "runway", model: seeded.model, providerJobId: seeded.id }),
  );
  await approveCase(db, reviewer, caseId, {
    action: stage === "polling" ? "resume_poll" : "retry_delivery",
    evidence: "task id confirmed in Runway's request history",
  });
  return { caseId, jobId: seeded.id };
}

const outcomeOf = async (caseId: string) =>
  (await runTick(ctx, worker(), { maxTasks: 10 })).results.find((r) => r.caseId === caseId)?.outcome;

describe("a Runway task, recovered through the simulator", () => {
  it("resume_poll: a SUCCEEDED task is copied, the hold settled and the case resolved, creating nothing", async () => {
    const { caseId, jobId } = await approvedCase("polling", { outcome: "succeeded" });
    expect(await outcomeOf(caseId)).toBe("resolved");
    expect(await db.case.findUniqueOrThrow({ where: { id: caseId } })).toMatchObject({
      stage: "delivery",
      state: "resolved",
      outcome: "delivered",
    });
    expect((await db.hold.findFirstOrThrow({ where: { caseId } })).status).toBe("settled");
    const observation = await db.providerObservation.findFirstOrThrow({ where: { caseId } });
    expect(observation).toMatchObject({ kind: "completed", providerStatus: "SUCCEEDED" });
    const asset = await db.asset.findFirstOrThrow({ where: { caseId } });
    expect((await readFile(path.join(assetDir, asset.storageKey))).length).toBe(32 * 1024);
    expect(sim.state.requests({ pathIncludes: `/runway/v1/tasks/${jobId}` }).length).toBeGreaterThan(0);
    expect(sim.state.stats().creates).toMatchObject({ runway: 0, total: 0 });
  });

  it("resume_poll: a task still waiting (PENDING or THROTTLED at Runway) is checked again later", async () => {
    const { caseId } = await approvedCase("polling", { outcome: "stuck", queuedMs: 3_600_000 });
    expect(await outcomeOf(caseId)).toBe("rescheduled");
    const observation = await db.providerObservation.findFirstOrThrow({ where: { caseId } });
    expect(observation).toMatchObject({ kind: "running", providerStatus: "PENDING" });
  });

  it("resume_poll: a FAILED task parks as generation_failed with Runway's reason", async () => {
    const { caseId } = await approvedCase("polling", { outcome: "failed", error: "The output was flagged." });
    await outcomeOf(caseId);
    expect(await db.case.findUniqueOrThrow({ where: { id: caseId } })).toMatchObject({
      stage: "generation_failed",
      state: "parked",
    });
  });

  it("resume_poll: a 500 then a 429 with Retry-After are ridden out, the answer still read", async () => {
    const { caseId, jobId } = await approvedCase("polling", { outcome: "succeeded" });
    sim.state.faults.add({
      match: { provider: "runway", jobId },
      fault: { type: "http_error", status: 500 },
      times: 1,
    });
    sim.state.faults.add({
      match: { jobId, route: "status" },
      fault: { type: "rate_limit", retryAfterSeconds: 1 },
      times: 1,
    });
    expect(await outcomeOf(caseId)).toBe("resolved");
  });

  it("resume_poll: an unknown task id is parked with the evidence, never taken as a failure", async () => {
    const reviewer = await makeUser(db, ["reviewer"]);
    const { caseId } = await parkCase(
      db,
      shop,
      parkInput("polling", { provider: "runway", providerJobId: "00000000-0000-4000-8000-000000000000" }),
    );
    await approveCase(db, reviewer, caseId, { action: "resume_poll", evidence: "go" });
    await outcomeOf(caseId);
    expect(await db.case.findUniqueOrThrow({ where: { id: caseId } })).toMatchObject({
      stage: "polling",
      state: "parked",
    });
  });

  it("retry_delivery: the output is copied from the task's fresh URL and published, creating nothing", async () => {
    const { caseId } = await approvedCase("delivery", { outcome: "succeeded" });
    expect(await outcomeOf(caseId)).toBe("resolved");
    const published = await db.asset.findMany({ where: { caseId, publishedAt: { not: null } } });
    expect(published).toHaveLength(1);
    expect(sim.state.stats().creates).toMatchObject({ runway: 0, total: 0 });
  });

  it("retry_delivery: a truncated download is caught and nothing is published", async () => {
    const { caseId, jobId } = await approvedCase("delivery", { outcome: "succeeded" });
    sim.state.faults.add({ match: { jobId, route: "download" }, fault: { type: "truncate" }, times: 1 });
    expect(await outcomeOf(caseId)).toBe("parked");
    expect(await db.asset.count({ where: { caseId, publishedAt: { not: null } } })).toBe(0);
    expect(sim.state.stats().creates.total).toBe(0);
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
