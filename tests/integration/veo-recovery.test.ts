import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { env } from "@/lib/env";
import { acceptFailure } from "@/lib/services/case/accept-failure";
import { approveCase } from "@/lib/services/case/approve-case";
import { parkCase } from "@/lib/services/case/park-case";
import { reconcileCase } from "@/lib/services/case/reconcile-case";
import { reportOutcome } from "@/lib/services/permit/report-outcome";
import { requestPermit } from "@/lib/services/permit/request-permit";
import { requestReplacement } from "@/lib/services/replacement/request-replacement";
import { makeUser, outcomeInput, parkInput, permitInput, producer } from "./fixtures";
import { providerRecovery } from "./helpers/provider-recovery";
import { tableCounts } from "./helpers/table-counts";
import { openTestDb } from "./setup/test-db";

// A Veo operation recovered end to end: the worker reads the operation by its full name through the
// simulator's Gemini API routes and copies the video from the API host, which refuses it without the key.
process.env.WORKER_LOG = "0";
const { db } = openTestDb();
const MODEL = "veo-3.1-generate-preview";
const shop = producer("veo-shop");
const operationName = (id: string) => `models/${MODEL}/operations/${id}`;
const h = providerRecovery(db, {
  provider: "veo",
  model: MODEL,
  evidence: "operation name confirmed in the producer's logs",
  jobIdOf: operationName,
});

describe("a Veo operation, recovered through the simulator", () => {
  it("resume_poll: a done operation's video is copied with the key, the hold settled and the case resolved, creating nothing", async () => {
    const { caseId, jobId } = await h.approvedCase("polling", { outcome: "succeeded" });
    expect(await h.outcomeOf(caseId)).toBe("resolved");
    expect(await db.case.findUniqueOrThrow({ where: { id: caseId } })).toMatchObject({
      stage: "delivery",
      state: "resolved",
      outcome: "delivered",
    });
    expect((await db.hold.findFirstOrThrow({ where: { caseId } })).status).toBe("settled");
    const observation = await db.providerObservation.findFirstOrThrow({ where: { caseId } });
    expect(observation).toMatchObject({ kind: "completed", providerStatus: "DONE" });
    const asset = await db.asset.findFirstOrThrow({ where: { caseId } });
    expect((await readFile(path.join(h.assetDir, asset.storageKey))).length).toBe(32 * 1024);
    expect(h.sim.state.requests({ pathIncludes: `/veo/v1beta/${operationName(jobId)}` }).length).toBeGreaterThan(0);
    expect(h.sim.state.requests({ pathIncludes: `/veo/v1beta/files/${jobId}:download` })).toHaveLength(1);
    expect(h.sim.state.stats().creates).toMatchObject({ veo: 0, total: 0 });
  });

  it("resume_poll: an operation not yet done is checked again later", async () => {
    const { caseId } = await h.approvedCase("polling", { outcome: "stuck", queuedMs: 3_600_000 });
    expect(await h.outcomeOf(caseId)).toBe("rescheduled");
    const observation = await db.providerObservation.findFirstOrThrow({ where: { caseId } });
    expect(observation).toMatchObject({ kind: "running", providerStatus: "RUNNING" });
  });

  it("resume_poll: an operation done with an error parks as generation_failed", async () => {
    const { caseId } = await h.approvedCase("polling", { outcome: "failed", error: "The prompt was blocked." });
    await h.outcomeOf(caseId);
    expect(await db.case.findUniqueOrThrow({ where: { id: caseId } })).toMatchObject({
      stage: "generation_failed",
      state: "parked",
    });
  });

  it("resume_poll: a 500 then a 429 with Retry-After are ridden out, the answer still read", async () => {
    const { caseId, jobId } = await h.approvedCase("polling", { outcome: "succeeded" });
    h.sim.state.faults.add({ match: { provider: "veo", jobId }, fault: { type: "http_error", status: 500 }, times: 1 });
    h.sim.state.faults.add({
      match: { jobId, route: "status" },
      fault: { type: "rate_limit", retryAfterSeconds: 1 },
      times: 1,
    });
    expect(await h.outcomeOf(caseId)).toBe("resolved");
  });

  it("resume_poll: a connection reset on every attempt is unknown, parked, never taken as a failure", async () => {
    const { caseId, jobId } = await h.approvedCase("polling", { outcome: "succeeded" });
    h.sim.state.faults.add({ match: { jobId, route: "status" }, fault: { type: "reset" }, times: 3 });
    await h.outcomeOf(caseId);
    expect(await db.case.findUniqueOrThrow({ where: { id: caseId } })).toMatchObject({
      stage: "polling",
      state: "parked",
    });
  });

  it("resume_poll: an operation Google does not know is parked with the evidence, never taken as a failure", async () => {
    const reviewer = await makeUser(db, ["reviewer"]);
    const { caseId } = await parkCase(
      db,
      shop,
      parkInput("polling", { provider: "veo", model: MODEL, providerJobId: operationName("nosuchop0000") }),
    );
    await approveCase(db, reviewer, caseId, { action: "resume_poll", evidence: "go" });
    await h.outcomeOf(caseId);
    expect(await db.case.findUniqueOrThrow({ where: { id: caseId } })).toMatchObject({
      stage: "polling",
      state: "parked",
    });
  });

  it("retry_delivery: the video is copied from the API host and published, creating nothing", async () => {
    const { caseId } = await h.approvedCase("delivery", { outcome: "succeeded" });
    expect(await h.outcomeOf(caseId)).toBe("resolved");
    const published = await db.asset.findMany({ where: { caseId, publishedAt: { not: null } } });
    expect(published).toHaveLength(1);
    expect(h.sim.state.stats().creates).toMatchObject({ veo: 0, total: 0 });
  });

  it("retry_delivery: a truncated or corrupted video is caught and nothing is published", async () => {
    for (const type of ["truncate", "corrupt"] as const) {
      const { caseId, jobId } = await h.approvedCase("delivery", { outcome: "succeeded" });
      h.sim.state.faults.add({ match: { jobId, route: "download" }, fault: { type }, times: 1 });
      expect(await h.outcomeOf(caseId)).toBe("parked");
      expect(await db.asset.count({ where: { caseId, publishedAt: { not: null } } })).toBe(0);
    }
    expect(h.sim.state.stats().creates.total).toBe(0);
  });

  it("a 'no job exists' verdict cannot lead to a replacement: Veo cannot be searched before paying again", async () => {
    const reviewer = await makeUser(db, ["reviewer"]);
    const { caseId } = await parkCase(db, shop, parkInput("submission_uncertain", { provider: "veo", model: MODEL }));
    await reconcileCase(
      db,
      reviewer,
      caseId,
      { verdict: "no_job", evidence: "no Veo charge in the project's Cloud Billing report for the window" },
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
    await acceptFailure(db, reviewer, caseId, { evidence: "no replacement without a search" });
    expect((await db.case.findUniqueOrThrow({ where: { id: caseId } })).state).toBe("resolved");
    expect(h.sim.state.stats().creates.total).toBe(0);
  });

  it("a Veo job named by anything but its operation name is refused where it enters, so no case holds an ID its worker cannot read", async () => {
    const before = await tableCounts(db);
    const short = parkInput("polling", { provider: "veo", model: MODEL, providerJobId: "k3tq9x1cvb7m" });
    await expect(parkCase(db, shop, short)).rejects.toMatchObject({
      code: "invalid_request",
      extra: {
        issues: [{ path: "providerJobId", message: expect.stringContaining("models/{model}/operations/{id}") }],
      },
    });
    expect(await tableCounts(db)).toEqual(before);

    const reviewer = await makeUser(db, ["reviewer"]);
    const { caseId } = await parkCase(db, shop, parkInput("submission_uncertain", { provider: "veo", model: MODEL }));
    const attach = (providerJobId: string) =>
      reconcileCase(db, reviewer, caseId, { verdict: "attach", providerJobId, evidence: "found in the logs" });
    await expect(attach("k3tq9x1cvb7m")).rejects.toMatchObject({ code: "invalid_request" });
    await attach(operationName("k3tq9x1cvb7m"));
    // A producer's report of its send, too.
    const { operationId, input } = permitInput({ provider: "veo", model: MODEL });
    const answer = await requestPermit(db, shop, operationId, input, env());
    if (answer.status !== "permitted") throw new Error(`no permit: ${answer.status}`);
    const report = (id: string) =>
      reportOutcome(db, shop, input.attemptId, outcomeInput(operationId, answer.permit.token, "accepted", id));
    await expect(report("op-short")).rejects.toMatchObject({ code: "invalid_request" });
    await report(operationName("op-full"));
    expect((await db.case.findUniqueOrThrow({ where: { id: caseId } })).providerJobId).toBe(
      operationName("k3tq9x1cvb7m"),
    );
  });
});
