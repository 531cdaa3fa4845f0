import { createHash, randomUUID } from "node:crypto";
import { mkdir, mkdtemp, readFile, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { env } from "@/lib/env";
import { approveCase } from "@/lib/services/case/approve-case";
import { getCase } from "@/lib/services/case/get-case";
import { parkCase } from "@/lib/services/case/park-case";
import { localStorage } from "@/lib/storage/local-storage";
import { storageKey } from "@/lib/worker/deliver-outputs";
import { runTick } from "@/lib/worker/run-tick";
import type { WorkerContext } from "@/lib/worker/worker-context";
import { type RunningSimulator, startSimulator } from "@/verification/simulator";
import { makeUser, parkInput, producer, worker } from "./fixtures";
import { testWorkerContext } from "./helpers/worker-context";
import { openTestDb } from "./setup/test-db";

process.env.WORKER_LOG = "0";
const { db } = openTestDb();
let sim: RunningSimulator;
let assetDir: string;
let ctx: WorkerContext;

beforeAll(async () => {
  sim = await startSimulator({ port: 0, timings: { queuedMs: 0, runningMs: 0, outputBytes: 32 * 1024 } });
  assetDir = await mkdtemp(path.join(tmpdir(), "file-identity-"));
  ctx = await testWorkerContext(db, sim.url, { storage: localStorage(assetDir), concurrency: 2, poisonClaims: 5 });
});
afterAll(() => sim.stop());

const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

/** A delivery case on a completed job, approved for retry_delivery. */
async function approvedDelivery(shopName: string, operationId: string, attempt = "a1") {
  const job = sim.state.seedJob({ provider: "replicate", outcome: "succeeded" });
  const reviewer = await makeUser(db, ["reviewer"]);
  const { caseId } = await parkCase(
    db,
    producer(shopName),
    parkInput("delivery", {
      operationId,
      attemptId: `${operationId}-${attempt}`,
      provider: job.provider,
      model: job.model,
      providerJobId: job.id,
      hold: { holdId: `hold-${operationId}-${attempt}`, amountMicros: 100_000, currency: "USD" },
    }),
  );
  const { actionId } = await approveCase(db, reviewer, caseId, { action: "retry_delivery", evidence: "copy it" });
  return { caseId, actionId, jobId: job.id };
}

async function tickFor(caseId: string) {
  const result = await runTick(ctx, worker(), { maxTasks: 10 });
  return result.results.find((r) => r.caseId === caseId)?.outcome;
}

/** Every published asset of the case, with the file's own digest beside the recorded one. */
async function publishedFiles(caseId: string) {
  const assets = await db.asset.findMany({
    where: { caseId, publishedAt: { not: null } },
    orderBy: { createdAt: "asc" },
  });
  return Promise.all(
    assets.map(async (a) => ({
      key: a.storageKey,
      recorded: a.sha256,
      onDisk: sha256(await readFile(path.join(assetDir, a.storageKey))),
    })),
  );
}

describe("file identity", () => {
  it("two producers delivering the same operation ID keep two intact files", async () => {
    const a = await approvedDelivery("identity-shop-a", "order-shared-1");
    const b = await approvedDelivery("identity-shop-b", "order-shared-1");
    expect(await tickFor(a.caseId)).toBe("resolved");
    expect(await tickFor(b.caseId)).toBeUndefined();
    const filesA = await publishedFiles(a.caseId);
    const filesB = await publishedFiles(b.caseId);
    expect(filesA).toHaveLength(1);
    expect(filesB).toHaveLength(1);
    expect(filesA[0]?.key).not.toBe(filesB[0]?.key);
    for (const file of [...filesA, ...filesB]) expect(file.onDisk).toBe(file.recorded);
    expect(filesA[0]?.recorded).toBe(sim.state.expectedOutput(a.jobId)?.sha256);
    expect(filesB[0]?.recorded).toBe(sim.state.expectedOutput(b.jobId)?.sha256);
  });

  it("episode 2 of an operation keeps episode 1's file", async () => {
    const first = await approvedDelivery("identity-shop-e", "order-episodes-1", "a1");
    expect(await tickFor(first.caseId)).toBe("resolved");
    const [episodeOne] = await publishedFiles(first.caseId);
    const second = await approvedDelivery("identity-shop-e", "order-episodes-1", "a2");
    expect(second.caseId).toBe(first.caseId);
    expect((await db.case.findUniqueOrThrow({ where: { id: first.caseId } })).episode).toBe(2);
    expect(await tickFor(second.caseId)).toBe("resolved");
    const files = await publishedFiles(first.caseId);
    expect(files).toHaveLength(2);
    expect(files[0]).toEqual(episodeOne);
    expect(files[1]?.key).not.toBe(episodeOne?.key);
    for (const file of files) expect(file.onDisk).toBe(file.recorded);
    expect(files[1]?.recorded).toBe(sim.state.expectedOutput(second.jobId)?.sha256);
  });

  it("a new episode of an attempt already delivered is refused before any byte is written, episode 1 intact", async () => {
    const first = await approvedDelivery("identity-shop-s", "order-same-attempt-1", "a1");
    expect(await tickFor(first.caseId)).toBe("resolved");
    const before = await publishedFiles(first.caseId);
    const kase = await db.case.findUniqueOrThrow({ where: { id: first.caseId } });
    const reviewer = await makeUser(db, ["reviewer"]);
    // The same attempt re-parked at another stage opens episode 2 on the same attempt.
    await parkCase(
      db,
      producer("identity-shop-s"),
      parkInput("polling", {
        operationId: "order-same-attempt-1",
        attemptId: "order-same-attempt-1-a1",
        provider: kase.provider as "replicate",
        model: kase.model,
        providerJobId: first.jobId,
        hold: { holdId: "hold-order-same-attempt-1-a1", amountMicros: 100_000, currency: "USD" },
      }),
    );
    const { actionId } = await approveCase(db, reviewer, first.caseId, { action: "resume_poll", evidence: "again" });
    expect(await tickFor(first.caseId)).toBe("parked");
    expect(await publishedFiles(first.caseId)).toEqual(before);
    expect(await db.asset.count({ where: { caseId: first.caseId, publishedAt: null } })).toBe(0);
    const key = storageKey({ caseId: first.caseId, episode: 2, actionId, fencingToken: 1, outputIndex: 0 });
    expect(await stat(path.join(assetDir, key)).catch(() => null)).toBeNull();
    const events = await db.auditEvent.findMany({ where: { caseId: first.caseId, kind: "recovery_unresolved" } });
    expect(JSON.stringify(events.at(-1)?.evidence)).toContain("already delivered in an earlier episode");
  });

  it("a file already under the reserved key is never replaced; the action ends unresolved with evidence", async () => {
    const { caseId, actionId } = await approvedDelivery("identity-shop-p", "order-planted-1");
    const key = storageKey({ caseId, episode: 1, actionId, fencingToken: 1, outputIndex: 0 });
    const planted = Buffer.from("planted before the copy");
    await mkdir(path.dirname(path.join(assetDir, key)), { recursive: true });
    await writeFile(path.join(assetDir, key), planted);

    expect(await tickFor(caseId)).toBe("parked");
    expect(await readFile(path.join(assetDir, key))).toEqual(planted);
    expect(await db.asset.count({ where: { caseId } })).toBe(0);
    const action = await db.recoveryAction.findUniqueOrThrow({ where: { id: actionId } });
    expect(action).toMatchObject({ status: "unresolved", claimCount: 1 });
    const row = await db.case.findUniqueOrThrow({ where: { id: caseId } });
    expect(row).toMatchObject({ stage: "delivery", state: "parked" });
    const [event] = await db.auditEvent.findMany({ where: { caseId, kind: "recovery_unresolved" } });
    expect(JSON.stringify(event?.evidence)).toContain("already exists");
    expect(JSON.stringify(event?.evidence)).toContain("nothing was published");
    expect(await db.notificationOutbox.count({ where: { caseId } })).toBe(0);
  });

  it("a key another asset row already holds is refused by the unique index before any byte is written", async () => {
    const { caseId, actionId } = await approvedDelivery("identity-shop-u", "order-unique-1");
    const key = storageKey({ caseId, episode: 1, actionId, fencingToken: 1, outputIndex: 0 });
    const kase = await db.case.findUniqueOrThrow({ where: { id: caseId } });
    const other = await db.asset.create({
      data: {
        caseId,
        attemptRef: kase.attemptRef,
        actionId: randomUUID(),
        fencingToken: 1n,
        outputIndex: 0,
        storageKey: key,
      },
    });
    expect(await tickFor(caseId)).toBe("parked");
    expect(await stat(path.join(assetDir, key)).catch(() => null)).toBeNull();
    expect(await db.asset.findMany({ where: { caseId } })).toEqual([other]);
    const [event] = await db.auditEvent.findMany({ where: { caseId, kind: "recovery_unresolved" } });
    expect(JSON.stringify(event?.evidence)).toContain("already reserved");
    expect((await db.recoveryAction.findUniqueOrThrow({ where: { id: actionId } })).claimCount).toBe(1);
  });

  it("assets published under the old key layout stay valid; a published row must carry its checksum", async () => {
    const { caseId } = await approvedDelivery("identity-shop-o", "order-old-1");
    const kase = await db.case.findUniqueOrThrow({ where: { id: caseId } });
    const old = {
      caseId,
      attemptRef: kase.attemptRef,
      actionId: randomUUID(),
      fencingToken: 1n,
      outputIndex: 0,
      storageKey: "order-old-1/claim-1/output-0",
    };
    await db.asset.create({ data: { ...old, sha256: "ab".repeat(32), sizeBytes: 10n, publishedAt: new Date() } });
    const reviewer = await makeUser(db, ["reviewer"]);
    const detail = await getCase(db, reviewer, caseId, env());
    expect(detail.assets.map((a) => a.storageKey)).toEqual(["order-old-1/claim-1/output-0"]);
    await expect(
      db.asset.create({ data: { ...old, actionId: randomUUID(), storageKey: "x/1", publishedAt: new Date() } }),
    ).rejects.toThrow(/assets_published_has_content/);
  });

  it("stores files as 0600 in folders of 0700, staging included", async () => {
    const { caseId } = await approvedDelivery("identity-shop-m", "order-modes-1");
    expect(await tickFor(caseId)).toBe("resolved");
    const [file] = await publishedFiles(caseId);
    const full = path.join(assetDir, file?.key ?? "missing");
    expect((await stat(full)).mode & 0o777).toBe(0o600);
    for (let dir = path.dirname(full); dir.startsWith(`${assetDir}/`); dir = path.dirname(dir)) {
      expect(((await stat(dir)).mode & 0o777).toString(8)).toBe("700");
    }
    expect(((await stat(path.join(assetDir, ".staging"))).mode & 0o777).toString(8)).toBe("700");
  });

  it("a storage key is reserved as an unpublished asset row before any byte is written", async () => {
    const { caseId, actionId, jobId } = await approvedDelivery("identity-shop-r", "order-reserve-1");
    // Hold the download until the reservation can be looked at.
    sim.state.faults.add({ match: { jobId, route: "download" }, fault: { type: "delay", ms: 800 }, times: 1 });
    const running = tickFor(caseId);
    let reserved: Awaited<ReturnType<typeof db.asset.findMany>> = [];
    for (let i = 0; i < 40 && reserved.length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      reserved = await db.asset.findMany({ where: { caseId } });
    }
    expect(reserved.map((a) => [a.actionId, a.publishedAt, a.sha256])).toEqual([[actionId, null, null]]);
    const key = reserved[0]?.storageKey ?? "missing";
    expect(await stat(path.join(assetDir, key)).catch(() => null)).toBeNull();
    expect(await running).toBe("resolved");
    const [published] = await db.asset.findMany({ where: { caseId } });
    expect(published?.id).toBe(reserved[0]?.id);
    expect(published?.publishedAt).not.toBeNull();
  });
});
