import { randomBytes } from "node:crypto";
import { mkdtemp, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as outcomeRoute from "@/app/api/v1/attempts/[attemptId]/outcome/route";
import * as casesRoute from "@/app/api/v1/cases/route";
import { API_ROUTES, routeKey } from "@/lib/api/routes";
import { requestFingerprint } from "@/lib/domain/fingerprint";
import { DEFAULT_VAULT_POLICY } from "@/lib/domain/vault";
import { env } from "@/lib/env";
import { createAccessToken } from "@/lib/services/access/create-access-token";
import { approveCase } from "@/lib/services/case/approve-case";
import { getCase } from "@/lib/services/case/get-case";
import { parkCase } from "@/lib/services/case/park-case";
import { metricsSnapshot } from "@/lib/services/overview/metrics-snapshot";
import { PERMIT_FOR_PARKING, parkPermit } from "@/lib/services/permit/park-permit";
import { reportOutcome } from "@/lib/services/permit/report-outcome";
import { requestPermit } from "@/lib/services/permit/request-permit";
import { saveRetentionPolicy } from "@/lib/services/retention/retention-policy";
import { runRetention } from "@/lib/services/retention/run-retention";
import { sweepProviderJobs } from "@/lib/services/usage/sweep-provider-jobs";
import { claimVaultCopies, finishVaultCopy, vaultStoredBytes } from "@/lib/services/vault/claim-vault-copies";
import { localStorage } from "@/lib/storage/local-storage";
import { runTick } from "@/lib/worker/run-tick";
import type { WorkerContext } from "@/lib/worker/worker-context";
import { type ManualClock, manualClock, type RunningSimulator, startSimulator } from "@/verification/simulator";
import { makeUser, outcomeInput, parkInput, parkOfPermit, permitInput, producer, worker } from "./fixtures";
import { callRoute } from "./helpers/call-route";
import { tableCounts } from "./helpers/table-counts";
import { testWorkerContext } from "./helpers/worker-context";
import { openTestDb } from "./setup/test-db";

// Decision 075: a completion the product learns of with no case to copy it is copied into the
// product's own storage within the provider's retention, so a case opened later still delivers.
const REPLICATE_SECRET = `whsec_${randomBytes(24).toString("base64")}`;
process.env.REPLICATE_WEBHOOK_SECRET = REPLICATE_SECRET;
process.env.AUTH_SECRET ??= "output-vault-test-secret-0123456789abcdef";
process.env.WORKER_LOG = "0";

const { db } = openTestDb();
const shop = producer("vault-shop");
const HOUR = 3_600_000;
let sim: RunningSimulator;
let clock: ManualClock;
let ctx: WorkerContext;

beforeAll(async () => {
  clock = manualClock(Date.now());
  sim = await startSimulator({ port: 0, clock, timings: { queuedMs: 0, runningMs: 0, outputBytes: 16 * 1024 } });
  ctx = await testWorkerContext(db, sim.url);
});
afterAll(async () => {
  await sim.stop();
});

const replicateRoute = (() => {
  const route = API_ROUTES.find((r) => routeKey(r) === "POST /api/v1/provider-webhooks/replicate");
  if (!route) throw new Error("the Replicate webhook route is not in the route table");
  return route.handle;
})();

let sequence = 0;
/** The simulator's prediction, signed as Replicate signs its webhooks; `id` repeats a delivery. */
async function webhookFor(jobId: string, id = `msg_vault_${sequence++}`) {
  const body = await (await fetch(`${sim.url}/replicate/v1/predictions/${jobId}`)).json();
  const raw = JSON.stringify(body);
  const at = new Date();
  return callRoute(replicateRoute, {
    rawBody: raw,
    method: "POST",
    headers: {
      "webhook-id": id,
      "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
      "webhook-signature": new Webhook(REPLICATE_SECRET).sign(id, at, raw),
    },
  });
}

/** A permitted send the producer reported accepted; the simulator's job for it has completed. */
async function acceptedSend() {
  const request = { prompt: `vault request ${sequence++}`, duration: 5 };
  const { operationId, input } = permitInput({
    provider: "replicate",
    requestFingerprint: requestFingerprint(request),
  });
  const permit = await requestPermit(db, shop, operationId, input, env());
  if (permit.status !== "permitted") throw new Error("expected a permit");
  const job = sim.state.seedJob({ provider: "replicate", model: input.model, input: request });
  await reportOutcome(db, shop, input.attemptId, outcomeInput(operationId, 1, "accepted", job.id));
  const attempt = await db.attempt.findFirstOrThrow({ where: { providerJobId: job.id } });
  return { operationId, input, job, attempt };
}

const copiesOf = (attemptRef: string) =>
  db.vaultCopy.findMany({ where: { attemptRef }, orderBy: { outputIndex: "asc" } });
const tick = () => runTick(ctx, worker(), { maxTasks: 5 });

async function sample(name: string, labels: Record<string, string>) {
  const family = (await metricsSnapshot(db)).find((f) => f.name === name);
  const found = family?.samples.find((s) => Object.entries(labels).every(([k, v]) => s.labels?.[k] === v));
  return found?.value ?? 0;
}

/**
 * The operation's case, opened hours after its permit completed at a job still to check, the way a
 * parked permit opens one (a producer parks a completed send at delivery, decision 078).
 */
function caseOpenedLater(attemptRef: string, jobId: string, stage: "polling", operationId: string) {
  return db.$transaction(async (tx) => {
    const permit = await tx.sendPermit.findFirstOrThrow({ where: { attemptRef }, include: PERMIT_FOR_PARKING });
    const parked = await parkPermit(tx, {
      permit,
      actor: shop,
      stage,
      providerJobId: jobId,
      next: "completed",
      evidence: { summary: `downloading ${operationId} failed` },
    });
    return parked.caseId;
  });
}

describe("the output vault", () => {
  it("keeps a completion no case copies, and a case opened after the provider deleted it delivers from the copy", async () => {
    const { job, attempt, operationId, input } = await acceptedSend();
    const copiesBefore = await sample("recovery_vault_copies_total", { provider: "replicate" });
    const answer = await webhookFor(job.id);
    expect(answer.json).toMatchObject({ outcome: "permit_reported", caseId: null });
    // The intent is committed with the webhook; nothing is fetched before the worker runs.
    const [intent] = await copiesOf(attempt.id);
    expect(intent).toMatchObject({ status: "pending", operationRef: attempt.operationRef, source: "webhook" });
    expect(intent?.expiresAt.getTime()).toBeGreaterThan(Date.now());

    await tick();
    const [kept] = await copiesOf(attempt.id);
    expect(kept).toMatchObject({ status: "copied", url: null, storedBytes: 16n * 1024n });
    expect(kept?.storageKey).toContain(`vault/${attempt.operationRef}/${attempt.id}/output-0/`);
    expect(await ctx.storage.exists(kept?.storageKey ?? "")).toBe(true);
    expect(await sample("recovery_vault_copies_total", { provider: "replicate" })).toBe(copiesBefore + 1);
    expect(await sample("recovery_vault_bytes", {})).toBeGreaterThanOrEqual(16 * 1024);

    // The provider's hour passes: its outputs are gone.
    clock.advance(2 * HOUR);
    const removed = await (await fetch(`${sim.url}/replicate/v1/predictions/${job.id}`)).json();
    expect(removed).toMatchObject({ status: "succeeded", output: null });

    // Hours later its producer, who could not fetch the video, parks the operation at delivery
    // through the API (decision 078): the case opens on the permit's attempt and hold.
    const key = await createAccessToken(db, "cli", { kind: "api_key", name: shop.name });
    const parked = await callRoute(casesRoute.POST, {
      token: key.secret,
      method: "POST",
      body: parkOfPermit(operationId, input, job.id, {
        evidence: { summary: `downloading ${operationId} failed`, observedAt: new Date().toISOString() },
      }),
    });
    expect(parked.status).toBe(201);
    const caseId = String(parked.json.caseId);
    expect(await db.sendPermit.findFirstOrThrow({ where: { attemptRef: attempt.id } })).toMatchObject({
      status: "completed",
      caseRef: caseId,
    });
    const reviewer = await makeUser(db, ["reviewer"]);
    await approveCase(db, reviewer, caseId, { action: "retry_delivery", evidence: "copy it for the shop" });
    const result = await tick();
    expect(result.results.find((r) => r.caseId === caseId)?.outcome).toBe("resolved");
    const asset = await db.asset.findFirstOrThrow({ where: { caseId } });
    expect(asset.sha256).toBe(kept?.sha256);
    expect(asset.publishedAt).not.toBeNull();
    expect((await db.case.findUniqueOrThrow({ where: { id: caseId } })).outputsUnavailableAt).toBeNull();
    expect(sim.state.stats().creates.total).toBe(0);
    // The case page says the product kept the copy, and when.
    const detail = await getCase(db, reviewer, caseId, env());
    expect(detail.assets[0]?.keptByProductAt).toBe(kept?.copiedAt?.toISOString());
  });

  it("a status check that finds the outputs removed delivers from the copy instead of recording them gone", async () => {
    const { job, attempt, operationId } = await acceptedSend();
    await webhookFor(job.id);
    await tick();
    clock.advance(2 * HOUR);
    const caseId = await caseOpenedLater(attempt.id, job.id, "polling", operationId);
    const reviewer = await makeUser(db, ["reviewer"]);
    await approveCase(db, reviewer, caseId, { action: "resume_poll", evidence: "look at the job again" });
    const result = await tick();
    expect(result.results.find((r) => r.caseId === caseId)?.outcome).toBe("resolved");
    // The provider's answer is on record as it was; the case was not marked as outputs gone.
    const observed = await db.providerObservation.findFirstOrThrow({ where: { caseId }, orderBy: { id: "desc" } });
    expect(observed.kind).toBe("completed");
    expect((await db.case.findUniqueOrThrow({ where: { id: caseId } })).outputsUnavailableAt).toBeNull();
    expect(await db.asset.count({ where: { caseId, publishedAt: { not: null } } })).toBe(1);
  });

  it("a completion only the provider's job list shows, never told by a webhook or report, is kept by the sweep", async () => {
    const { job, attempt } = await acceptedSend();
    expect(await copiesOf(attempt.id)).toHaveLength(0);
    const policy = { ...DEFAULT_VAULT_POLICY, providers: "all" as const };
    // The list window is the provider's time: earlier journeys moved the simulator's clock on.
    const at = { now: new Date(clock.now()) };
    const [swept] = await sweepProviderJobs(
      { db, adapters: { replicate: ctx.adapters.replicate }, vault: policy },
      worker(),
      at,
    );
    expect(swept).toMatchObject({ provider: "replicate", kept: 1 });
    const [intent] = await copiesOf(attempt.id);
    expect(intent).toMatchObject({ status: "pending", source: "status", providerJobId: job.id });
    // A second sweep reads nothing again: the intent is recorded once.
    const [again] = await sweepProviderJobs(
      { db, adapters: { replicate: ctx.adapters.replicate }, vault: policy },
      worker(),
      at,
    );
    expect(again?.kept).toBeUndefined();
    await tick();
    expect((await copiesOf(attempt.id))[0]).toMatchObject({ status: "copied" });
  });

  it("a repeated webhook, or another about the same job, records and copies each output once", async () => {
    const { job, attempt } = await acceptedSend();
    await webhookFor(job.id, "msg_vault_repeat");
    await webhookFor(job.id, "msg_vault_repeat");
    await webhookFor(job.id);
    expect(await copiesOf(attempt.id)).toHaveLength(1);
    await tick();
    await webhookFor(job.id);
    await tick();
    const copies = await copiesOf(attempt.id);
    expect(copies.map((c) => [c.status, c.claimToken])).toEqual([["copied", 1]]);
  });

  it("a copy taken by a worker that died is copied by the next once its lease passes; the dead one cannot finish it", async () => {
    const { job, attempt } = await acceptedSend();
    await webhookFor(job.id);
    const [taken] = (await claimVaultCopies(db, { limit: 50, leaseSeconds: 300 })).filter(
      (c) => c.attemptRef === attempt.id,
    );
    if (!taken) throw new Error("expected the copy to be claimed");
    await tick();
    expect((await copiesOf(attempt.id))[0]).toMatchObject({ status: "pending", claimToken: 1 });
    // The lease runs out (moved back rather than waited for).
    await db.vaultCopy.update({ where: { id: taken.id }, data: { nextAttemptAt: new Date(Date.now() - 1000) } });
    await tick();
    expect((await copiesOf(attempt.id))[0]).toMatchObject({ status: "copied", claimToken: 2 });
    expect(await finishVaultCopy(db, taken, { kind: "missed", reason: "refused" })).toBe(false);
    expect((await copiesOf(attempt.id))[0]?.status).toBe("copied");
  });

  it("a copy over the size bound is missed with its reason and counted, and nothing is kept", async () => {
    const small = await testWorkerContext(db, sim.url, { vault: { ...DEFAULT_VAULT_POLICY, maxFileBytes: 1024 } });
    const before = await sample("recovery_vault_missed_total", { provider: "replicate", reason: "too_large" });
    const { job, attempt } = await acceptedSend();
    await webhookFor(job.id);
    await runTick(small, worker(), { maxTasks: 5 });
    expect((await copiesOf(attempt.id))[0]).toMatchObject({
      status: "missed",
      missedReason: "too_large",
      storageKey: null,
      url: null,
    });
    expect(await sample("recovery_vault_missed_total", { provider: "replicate", reason: "too_large" })).toBe(
      before + 1,
    );

    // The whole vault's bound: with no room left, the next copy is missed as full.
    const held = await vaultStoredBytes(db);
    const full = await testWorkerContext(db, sim.url, { vault: { ...DEFAULT_VAULT_POLICY, maxTotalBytes: held + 10 } });
    const next = await acceptedSend();
    await webhookFor(next.job.id);
    await runTick(full, worker(), { maxTasks: 5 });
    expect((await copiesOf(next.attempt.id))[0]).toMatchObject({ status: "missed", missedReason: "vault_full" });
    expect(await vaultStoredBytes(db)).toBe(held);
  });

  it("a completion learned after the provider's retention passed is missed as expired, without a download", async () => {
    clock.set(Date.now() - 2 * HOUR);
    const { job, attempt } = await acceptedSend();
    await webhookFor(job.id);
    clock.set(Date.now());
    await tick();
    expect((await copiesOf(attempt.id))[0]).toMatchObject({ status: "missed", missedReason: "expired" });
    expect(sim.state.requests({ pathIncludes: `/delivery/replicate/${job.id}` })).toHaveLength(0);
  });

  it("a copy past its keep period is removed by retention, file and all, and no longer counted as held", async () => {
    const { job, attempt } = await acceptedSend();
    await webhookFor(job.id);
    await tick();
    const [kept] = await copiesOf(attempt.id);
    if (!kept?.storageKey) throw new Error("expected a copy");
    const heldBefore = await sample("recovery_vault_bytes", {});
    await db.vaultCopy.update({ where: { id: kept.id }, data: { keepUntil: new Date(Date.now() - 1000) } });
    const run = await runRetention(db, ctx.storage, worker(), { now: new Date(), deadline: Date.now() + 10_000 });
    expect(run.vaultCopiesRemoved).toBe(1);
    expect((await copiesOf(attempt.id))[0]).toMatchObject({ status: "removed" });
    expect(await ctx.storage.exists(kept.storageKey)).toBe(false);
    expect(await sample("recovery_vault_bytes", {})).toBe(heldBefore - 16 * 1024);
  });

  it("a producer's completed report that carries its output URLs is kept the same way, through the API", async () => {
    const key = await createAccessToken(db, "cli", { kind: "api_key", name: shop.name });
    const { job, attempt, operationId, input } = await acceptedSend();
    const prediction = (await (await fetch(`${sim.url}/replicate/v1/predictions/${job.id}`)).json()) as {
      output: string | string[];
    };
    const url = Array.isArray(prediction.output) ? (prediction.output[0] ?? "") : prediction.output;
    const report = (body: Record<string, unknown>, token = key.secret) =>
      callRoute(outcomeRoute.POST, {
        token,
        method: "POST",
        params: { attemptId: input.attemptId },
        body: { ...outcomeInput(operationId, 1, "completed", job.id), ...body },
      });

    // Bad input is refused with the field named, and nothing is written.
    const reviewer = await makeUser(db, ["reviewer"]);
    const personal = await createAccessToken(db, reviewer, { kind: "personal", name: "cli" });
    const before = await tableCounts(db);
    const failedWithOutputs = await report({ outcome: "failed", outputs: [{ url }] });
    expect(failedWithOutputs.status).toBe(400);
    expect(JSON.stringify(failedWithOutputs.json)).toContain("outputs");
    expect((await report({ outputs: [{ url: "ftp://files.example/video.mp4" }] })).status).toBe(400);
    expect((await report({ outputs: [] })).status).toBe(400);
    expect((await report({ outputs: [{ url }] }, personal.secret)).status).toBe(403);
    expect(await tableCounts(db)).toEqual(before);

    const answer = await report({ outputs: [{ url, contentType: "video/mp4" }] });
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ status: "completed", caseId: null });
    expect((await copiesOf(attempt.id))[0]).toMatchObject({ status: "pending", source: "report" });
    // The signed query stays out of what the report keeps (DESIGN rule 10).
    const permit = await db.sendPermit.findFirstOrThrow({ where: { attemptRef: attempt.id } });
    expect(JSON.stringify(permit.lastReport)).not.toContain("signature=");
    await tick();
    expect((await copiesOf(attempt.id))[0]).toMatchObject({ status: "copied", url: null });
  });

  it("the provider's webhook replaces the URLs a producer reported while their copy is pending", async () => {
    const { job, attempt, operationId, input } = await acceptedSend();
    const other = sim.state.seedJob({ provider: "replicate" });
    const wrong = `${sim.url}/delivery/replicate/${other.id}/output.mp4`;
    await reportOutcome(db, shop, input.attemptId, {
      ...outcomeInput(operationId, 1, "completed", job.id),
      outputs: [{ url: wrong }],
    });
    expect((await copiesOf(attempt.id))[0]).toMatchObject({ source: "report", url: wrong });
    const answer = await webhookFor(job.id);
    expect(answer.status).toBe(200);
    const [replaced] = await copiesOf(attempt.id);
    expect(replaced?.source).toBe("webhook");
    expect(replaced?.url).toContain(`/delivery/replicate/${job.id}/`);
  });

  it("the orphan sweep leaves an old file a kept copy names, and removes one a lost claim left behind", async () => {
    const root = await mkdtemp(path.join(tmpdir(), "vault-files-"));
    const storage = localStorage(root);
    const own = await testWorkerContext(db, sim.url, { storage });
    const admin = await makeUser(db, ["admin"]);
    await saveRetentionPolicy(db, admin, { producer: null, days: 30 });
    const { job, attempt } = await acceptedSend();
    await webhookFor(job.id);
    await runTick(own, worker(), { maxTasks: 5 });
    const [kept] = await copiesOf(attempt.id);
    if (!kept?.storageKey) throw new Error("expected a copy");
    const stray = `vault/${attempt.operationRef}/${attempt.id}/output-0/claim-99`;
    await writeFile(path.join(root, stray), "bytes");
    const old = new Date(Date.now() - 60 * 86_400_000);
    for (const key of [kept.storageKey, stray]) await utimes(path.join(root, key), old, old);
    await runRetention(db, storage, worker(), { now: new Date(), deadline: Date.now() + 10_000 });
    expect(await storage.exists(kept.storageKey)).toBe(true);
    expect(await storage.exists(stray)).toBe(false);
  });

  it("an operation with an open case is left to the case's own delivery", async () => {
    const job = sim.state.seedJob({ provider: "replicate" });
    const { caseId } = await parkCase(
      db,
      shop,
      parkInput("polling", { provider: "replicate", model: job.model, providerJobId: job.id }),
    );
    expect((await webhookFor(job.id)).json).toMatchObject({ outcome: "converged", caseId });
    const kase = await db.case.findUniqueOrThrow({ where: { id: caseId } });
    expect(await copiesOf(kase.attemptRef)).toHaveLength(0);
  });
});
