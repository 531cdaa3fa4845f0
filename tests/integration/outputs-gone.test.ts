import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { env } from "@/lib/env";
import { acceptOutputsLost } from "@/lib/services/case/accept-outputs-lost";
import { approveCase } from "@/lib/services/case/approve-case";
import { getCase } from "@/lib/services/case/get-case";
import { listCases } from "@/lib/services/case/list-cases";
import { parkCase } from "@/lib/services/case/park-case";
import { claimActions } from "@/lib/services/claim/claim-actions";
import { overviewStats } from "@/lib/services/overview/overview-stats";
import { authorizeReplacement } from "@/lib/services/replacement/decide-replacement";
import { requestReplacement } from "@/lib/services/replacement/request-replacement";
import { listCasesSchema } from "@/lib/validation/list-cases";
import { runTick } from "@/lib/worker/run-tick";
import type { WorkerContext } from "@/lib/worker/worker-context";
import { type RunningSimulator, startSimulator } from "@/verification/simulator";
import { makeUser, parkInput, producer, worker } from "./fixtures";
import { startWebhookReceiver, type WebhookReceiver } from "./helpers/webhook-receiver";
import { testWorkerContext } from "./helpers/worker-context";
import { openTestDb } from "./setup/test-db";

// Rule 13 for deliveries: outputs the provider deleted before a copy succeeded have their own
// decisions, and outputs that will expire soonest are copied first.
process.env.WORKER_LOG = "0";
const { db } = openTestDb();
let sim: RunningSimulator;
let ctx: WorkerContext;
let receiver: WebhookReceiver;
const secret = `whsec_${randomBytes(32).toString("base64")}`;
const shop = producer("gone-shop");
const MINUTE = 60_000;
const codeOf = (error: unknown) => (error as { code?: string } | undefined)?.code;

beforeAll(async () => {
  sim = await startSimulator({ port: 0, timings: { queuedMs: 0, runningMs: 0, outputBytes: 16 * 1024 } });
  ctx = await testWorkerContext(db, sim.url, { maxDownloadBytes: 1024 * 1024 });
  receiver = await startWebhookReceiver(secret);
  await db.notificationEndpoint.create({ data: { producer: shop.name, url: receiver.url, signingSecret: secret } });
});
afterAll(async () => {
  await receiver.stop();
  await sim.stop();
});

type Seed = Parameters<RunningSimulator["state"]["seedJob"]>[0];

async function parked(stage: "polling" | "delivery", job: Seed) {
  const seeded = sim.state.seedJob(job);
  const { caseId } = await parkCase(
    db,
    shop,
    parkInput(stage, { provider: seeded.provider, model: seeded.model, providerJobId: seeded.id }),
  );
  return caseId;
}

async function approved(stage: "polling" | "delivery", job: Seed) {
  const caseId = await parked(stage, job);
  const reviewer = await makeUser(db, ["reviewer"]);
  await approveCase(db, reviewer, caseId, {
    action: stage === "polling" ? "resume_poll" : "retry_delivery",
    evidence: "go",
  });
  return caseId;
}

async function tickFor(caseId: string) {
  const result = await runTick(ctx, worker(), { maxTasks: 10 });
  return result.results.find((r) => r.caseId === caseId)?.outcome;
}

async function expectOutputsGone(caseId: string) {
  const row = await db.case.findUniqueOrThrow({ where: { id: caseId } });
  expect(row).toMatchObject({ stage: "delivery", state: "parked" });
  expect(row.outputsUnavailableAt).not.toBeNull();
  const observation = await db.providerObservation.findFirst({ where: { caseId, kind: "outputs_unavailable" } });
  expect(observation).not.toBeNull();
  const action = await db.recoveryAction.findFirstOrThrow({ where: { caseId }, orderBy: { createdAt: "desc" } });
  expect(action).toMatchObject({ status: "unresolved", outcome: "outputs_unavailable" });
  const timeline = await db.auditEvent.findMany({ where: { caseId }, select: { kind: true } });
  expect(timeline.map((e) => e.kind)).toContain("outputs_unavailable_observed");
}

describe("outputs the provider no longer has", () => {
  it("Replicate data_removed: recorded, another copy refused, the loss accepted with the hold kept and the producer told", async () => {
    const caseId = await approved("delivery", { provider: "replicate", outputTtlMs: 0 });
    expect(await tickFor(caseId)).toBe("parked");
    await expectOutputsGone(caseId);

    const reviewer = await makeUser(db, ["reviewer"]);
    const again = await approveCase(db, reviewer, caseId, {
      action: "retry_delivery",
      evidence: "try once more",
    }).catch((e: unknown) => e);
    expect(codeOf(again)).toBe("outputs_unavailable");
    expect(await db.recoveryAction.count({ where: { caseId, status: "ready" } })).toBe(0);

    const detail = await getCase(db, reviewer, caseId, env());
    expect(detail.outputsUnavailable).toBe(true);

    const result = await acceptOutputsLost(db, reviewer, caseId, { evidence: "deleted by the provider before copy" });
    expect(result).toEqual({ caseId, state: "resolved", outcome: "outputs_lost" });
    const row = await db.case.findUniqueOrThrow({ where: { id: caseId } });
    expect(row).toMatchObject({ state: "resolved", outcome: "outputs_lost", heldMicros: 100_000n });
    const hold = await db.hold.findFirstOrThrow({ where: { caseId } });
    expect(hold.status).toBe("held");
    expect(await db.ledgerEntry.count({ where: { holdRef: hold.id, kind: { not: "reserve" } } })).toBe(0);
    expect(await db.decision.count({ where: { caseId, kind: "accept_outputs_lost" } })).toBe(1);

    const message = await db.notificationOutbox.findFirstOrThrow({ where: { caseId, eventType: "case.outputs_lost" } });
    await runTick(ctx, worker(), { maxTasks: 1 });
    const delivered = receiver.received.find((r) => r.webhookId === message.id);
    expect(delivered?.verified).toBe(true);
    expect(delivered?.payload).toMatchObject({
      type: "case.outputs_lost",
      data: { caseId, outcome: "outputs_lost", providerJobId: row.providerJobId },
    });
    expect(sim.state.stats().creates.total).toBe(0);
  });

  it("fal result gone after completion: a replacement is requested and authorised by a different finance user", async () => {
    const caseId = await approved("delivery", { provider: "fal", outputTtlMs: 0, resultTtlMs: 0 });
    expect(await tickFor(caseId)).toBe("parked");
    await expectOutputsGone(caseId);

    const reviewer = await makeUser(db, ["reviewer"]);
    const finance = await makeUser(db, ["finance"]);
    const request = await requestReplacement(db, reviewer, caseId, { evidence: "outputs deleted; producer needs it" });
    expect(request).toMatchObject({ amountMicros: 100_000, currency: "USD" });
    const ownDecision = await authorizeReplacement(db, reviewer, request.requestId, { evidence: "mine" }).catch(
      (e: unknown) => e,
    );
    expect(codeOf(ownDecision)).toBe("forbidden");
    const authorised = await authorizeReplacement(db, finance, request.requestId, { evidence: "budget approved" });
    expect(authorised.attemptId).toContain("-replacement-1");
    const row = await db.case.findUniqueOrThrow({ where: { id: caseId } });
    expect(row).toMatchObject({ state: "resolved", outcome: "replacement_authorized" });
    // The original charge stays held for finance next to the replacement's own hold.
    const holds = await db.hold.findMany({ where: { caseId }, orderBy: { createdAt: "asc" } });
    expect(holds.map((h) => h.status)).toEqual(["held", "held"]);
  });

  it("a file host answering 404 past retention is the same loss; a transient download error is not", async () => {
    const goneCase = await approved("delivery", { provider: "fal", outputTtlMs: 0, resultTtlMs: 60 * MINUTE });
    expect(await tickFor(goneCase)).toBe("parked");
    await expectOutputsGone(goneCase);

    const flaky = await approved("delivery", { provider: "replicate" });
    const job = (await db.case.findUniqueOrThrow({ where: { id: flaky } })).providerJobId ?? "";
    sim.state.faults.add({ match: { jobId: job, route: "download" }, fault: { type: "http_error", status: 503 } });
    expect(await tickFor(flaky)).toBe("parked");
    sim.state.faults.clear();
    const row = await db.case.findUniqueOrThrow({ where: { id: flaky } });
    expect(row.outputsUnavailableAt).toBeNull();
    const reviewer = await makeUser(db, ["reviewer"]);
    await approveCase(db, reviewer, flaky, { action: "retry_delivery", evidence: "the CDN is back" });
    expect(await tickFor(flaky)).toBe("resolved");
  });

  it("a status check that finds the job finished but its outputs removed settles the charge and parks the same way", async () => {
    const caseId = await approved("polling", { provider: "replicate", outputTtlMs: 0 });
    expect(await tickFor(caseId)).toBe("parked");
    await expectOutputsGone(caseId);
    // The provider completed the job, so the charge is certain: the hold is settled, never released.
    expect((await db.hold.findFirstOrThrow({ where: { caseId } })).status).toBe("settled");
    const reviewer = await makeUser(db, ["reviewer"]);
    await acceptOutputsLost(db, reviewer, caseId, { evidence: "finished after the retention hour" });
    expect(await db.case.findUniqueOrThrow({ where: { id: caseId } })).toMatchObject({ outcome: "outputs_lost" });
  });

  it("a new episode forgets the lost outputs of the old one", async () => {
    const input = parkInput("delivery");
    const seeded = sim.state.seedJob({ provider: "replicate", outputTtlMs: 0 });
    const first = { ...input, provider: seeded.provider, model: seeded.model, providerJobId: seeded.id };
    const { caseId } = await parkCase(db, shop, first);
    const reviewer = await makeUser(db, ["reviewer"]);
    await approveCase(db, reviewer, caseId, { action: "retry_delivery", evidence: "go" });
    await tickFor(caseId);
    await acceptOutputsLost(db, reviewer, caseId, { evidence: "lost" });

    const fresh = sim.state.seedJob({ provider: "replicate" });
    await parkCase(db, shop, {
      ...first,
      attemptId: `${input.operationId}-a2`,
      providerJobId: fresh.id,
      hold: { ...input.hold, holdId: `${input.hold.holdId}-2` },
    });
    const row = await db.case.findUniqueOrThrow({ where: { id: caseId } });
    expect(row).toMatchObject({ episode: 2, state: "parked", outputsUnavailableAt: null, outputsExpireAt: null });
    await approveCase(db, reviewer, caseId, { action: "retry_delivery", evidence: "the new attempt finished" });
    expect(await tickFor(caseId)).toBe("resolved");
  });

  it("a delivery whose job the provider does not know on two separate claims gets the same two decisions", async () => {
    // A producer that copied a wrong job ID: every copy fails with "no such job", so without this
    // the case could only be retried (rule 13). One not-found alone may be a stale replica.
    const { caseId } = await parkCase(
      db,
      shop,
      parkInput("delivery", { providerJobId: "no-such-job-at-the-provider" }),
    );
    const reviewer = await makeUser(db, ["reviewer"]);
    await approveCase(db, reviewer, caseId, { action: "retry_delivery", evidence: "go" });
    expect(await tickFor(caseId)).toBe("parked");
    const once = await db.case.findUniqueOrThrow({ where: { id: caseId } });
    expect(once.outputsUnavailableAt).toBeNull();

    await approveCase(db, reviewer, caseId, { action: "retry_delivery", evidence: "maybe a replica lagged" });
    expect(await tickFor(caseId)).toBe("parked");
    await expectOutputsGone(caseId);
    const evidence = await db.auditEvent.findFirstOrThrow({ where: { caseId, kind: "outputs_unavailable_observed" } });
    expect(JSON.stringify(evidence.evidence)).toContain("on two separate checks");
    const result = await acceptOutputsLost(db, reviewer, caseId, { evidence: "wrong job ID in the shop's log" });
    expect(result.outcome).toBe("outputs_lost");
    expect(sim.state.stats().creates.total).toBe(0);
  });
});

describe("delivering before expiry", () => {
  it("records the earliest expiry, claims deliveries earliest-expiry first and shows what expires within the hour", async () => {
    // Three finished jobs whose outputs Replicate deletes 50, 10 and 30 minutes from now.
    const now = sim.state.clock.now();
    const finishedAgo = [10, 50, 30].map((m) => m * MINUTE);
    const cases: string[] = [];
    for (const ago of finishedAgo) {
      cases.push(await approved("polling", { provider: "replicate", createdAt: now - ago }));
    }
    // The copies fail once, so each case parks as a delivery that knows when its outputs expire.
    sim.state.faults.add({ match: { route: "download" }, fault: { type: "http_error", status: 503 } });
    await runTick(ctx, worker(), { maxTasks: 10 });
    sim.state.faults.clear();
    for (const [index, caseId] of cases.entries()) {
      const row = await db.case.findUniqueOrThrow({ where: { id: caseId } });
      expect(row).toMatchObject({ stage: "delivery", state: "parked" });
      const expected = now - (finishedAgo[index] ?? 0) + 60 * MINUTE;
      expect(row.outputsExpireAt?.getTime()).toBe(expected);
    }

    const finance = await makeUser(db, ["finance"]);
    const overview = await overviewStats(db, finance, { alertWindowMinutes: 15, alertThreshold: 1000 });
    // The holds were settled on completion (the charge is certain), so nothing is held behind them.
    expect(overview.outputsExpiringSoon.count).toBeGreaterThanOrEqual(3);

    const reviewer = await makeUser(db, ["reviewer"]);
    for (const caseId of cases)
      await approveCase(db, reviewer, caseId, { action: "retry_delivery", evidence: "retry" });
    const order: string[] = [];
    for (let i = 0; i < cases.length; i++) {
      const [claimed] = await claimActions(db, worker(), { max: 1 });
      if (claimed) order.push(claimed.caseId);
    }
    expect(order).toEqual([cases[1], cases[2], cases[0]]);
  });

  it("counts open cases expiring within the hour with the money held behind them", async () => {
    const finance = await makeUser(db, ["finance"]);
    const before = (await overviewStats(db, finance, { alertWindowMinutes: 15, alertThreshold: 1000 }))
      .outputsExpiringSoon;
    const soon = await parked("delivery", { provider: "replicate" });
    const later = await parked("delivery", { provider: "replicate" });
    const now = Date.now();
    await db.case.update({ where: { id: soon }, data: { outputsExpireAt: new Date(now + 20 * MINUTE) } });
    await db.case.update({ where: { id: later }, data: { outputsExpireAt: new Date(now + 3 * 60 * MINUTE) } });
    const after = (await overviewStats(db, finance, { alertWindowMinutes: 15, alertThreshold: 1000 }))
      .outputsExpiringSoon;
    expect(after.count).toBe(before.count + 1);
    const heldBefore = before.held.find((h) => h.currency === "USD")?.micros ?? 0;
    expect(after.held.find((h) => h.currency === "USD")?.micros).toBe(String(BigInt(heldBefore) + 100_000n));
  });
});

describe("what happened, and what happens next", () => {
  it("the case and the queue show the failed copy, who the case waits on, and the decisions that do not repeat it first", async () => {
    const caseId = await parked("delivery", { provider: "replicate", outputTtlMs: 0 });
    const reviewer = await makeUser(db, ["reviewer"]);
    const before = await getCase(db, reviewer, caseId, env());
    expect(before.progress).toMatchObject({ lastAttempt: null, waitingOn: { party: "reviewer" } });
    await approveCase(db, reviewer, caseId, { action: "retry_delivery", evidence: "go" });
    // Approved: queued for the worker at once, not "parked".
    expect((await getCase(db, reviewer, caseId, env())).progress.waitingOn).toMatchObject({
      party: "worker",
      why: "approved: queued for the worker",
    });
    expect(await tickFor(caseId)).toBe("parked");
    const after = await getCase(db, reviewer, caseId, env());
    expect(after.progress.lastAttempt).toMatchObject({ kind: "retry_delivery", failed: true, count: 1 });
    expect(after.progress.lastAttempt?.reason).toMatch(/\S/);
    expect(after.progress.waitingOn).toMatchObject({
      party: "reviewer",
      why: expect.stringContaining("outputs are gone"),
    });
    const page = await listCases(db, reviewer, listCasesSchema.parse({ q: after.operationId }));
    expect(page.items).toHaveLength(1);
    expect(page.items[0]).toMatchObject({
      lastAttempt: { kind: "retry_delivery", failed: true, reason: after.progress.lastAttempt?.reason },
      waitingOn: { party: "reviewer" },
    });
  });

  it("a queue row counts the attempts of its kind this episode, so a second failure does not read as the first", async () => {
    const reviewer = await makeUser(db, ["reviewer"]);
    const { caseId } = await parkCase(
      db,
      shop,
      parkInput("polling", { provider: "replicate", providerJobId: `unknown-${randomBytes(4).toString("hex")}` }),
    );
    const row = async () =>
      (
        await listCases(
          db,
          reviewer,
          listCasesSchema.parse({ q: (await getCase(db, reviewer, caseId, env())).operationId }),
        )
      ).items[0];
    for (const n of [1, 2]) {
      await approveCase(db, reviewer, caseId, { action: "resume_poll", evidence: `try ${n}` });
      expect(await tickFor(caseId)).toBe("parked");
      expect((await row())?.lastAttempt).toMatchObject({ kind: "resume_poll", failed: true, count: n });
    }
    expect((await getCase(db, reviewer, caseId, env())).progress.lastAttempt).toMatchObject({ failed: true, count: 2 });
  });
});
