import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { approveCase } from "@/lib/services/case/approve-case";
import { flagDuplicateOutputs, lockOutputDigests } from "@/lib/services/case/flag-duplicate-outputs";
import { listDuplicateOutputs } from "@/lib/services/case/list-duplicate-outputs";
import { parkCase } from "@/lib/services/case/park-case";
import { metricsSnapshot } from "@/lib/services/overview/metrics-snapshot";
import { runTick } from "@/lib/worker/run-tick";
import type { WorkerContext } from "@/lib/worker/worker-context";
import { type RunningSimulator, startSimulator } from "@/verification/simulator";
import { makeUser, parkInput, producer, publishedAsset, worker } from "./fixtures";
import { testWorkerContext } from "./helpers/worker-context";
import { openTestDb } from "./setup/test-db";

// Decision 072: two paid jobs whose copies have the same SHA-256 are flagged once, on both cases and
// for finance, whoever publishes first and even when both publish at once.
process.env.WORKER_LOG = "0";
const { db } = openTestDb();
let sim: RunningSimulator;
let ctx: WorkerContext;

beforeAll(async () => {
  sim = await startSimulator({ port: 0, timings: { queuedMs: 0, runningMs: 0, outputBytes: 16 * 1024 } });
  ctx = await testWorkerContext(db, sim.url, { concurrency: 2 });
});
afterAll(() => sim.stop());

/** A delivery case of a seeded simulator job, approved for the worker to copy its output. */
async function approvedDelivery(shop: string, outputSeed: string) {
  const seeded = sim.state.seedJob({ provider: "replicate", outputSeed });
  const reviewer = await makeUser(db, ["reviewer"]);
  const { caseId } = await parkCase(
    db,
    producer(shop),
    parkInput("delivery", { provider: "replicate", model: seeded.model, providerJobId: seeded.id }),
  );
  await approveCase(db, reviewer, String(caseId), { action: "retry_delivery", evidence: "copy it again" });
  const kase = await db.case.findUniqueOrThrow({ where: { id: String(caseId) } });
  return { kase, sha256: sim.state.expectedOutput(seeded.id)?.sha256 ?? "" };
}

const pairsOf = (caseId: string) =>
  db.outputDuplicate.findMany({ where: { OR: [{ firstCaseId: caseId }, { secondCaseId: caseId }] } });
const flagsOn = (caseId: string) =>
  db.auditEvent.findMany({ where: { caseId, kind: "output_duplicate_flagged" }, orderBy: { createdAt: "asc" } });

/** Waits until a session on this database is blocked on a lock (or gives up after 20 s). */
async function waitForLockWaiter() {
  for (let i = 0; i < 400; i++) {
    const rows = await db.$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE datname = current_database() AND wait_event_type = 'Lock'`;
    if ((rows[0]?.n ?? 0) >= 1) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("the same video delivered for two operations", () => {
  it("is flagged once, over HTTP through the worker, on both cases and in finance's list", async () => {
    const first = await approvedDelivery("dup-north-shop", "shared-video-1");
    const second = await approvedDelivery("dup-south-shop", "shared-video-1");
    const other = await approvedDelivery("dup-north-shop", "a-video-of-its-own");
    expect(first.sha256).toBe(second.sha256);
    const ticked = await runTick(ctx, worker(), { maxTasks: 10 });
    for (const { kase } of [first, second, other]) {
      expect(ticked.results.find((r) => r.caseId === kase.id)?.outcome).toBe("resolved");
    }
    const pairs = await pairsOf(first.kase.id);
    expect(pairs).toHaveLength(1);
    expect(pairs[0]).toMatchObject({ sha256: first.sha256 });
    expect(new Set([pairs[0]?.firstCaseId, pairs[0]?.secondCaseId])).toEqual(new Set([first.kase.id, second.kase.id]));
    expect(await pairsOf(other.kase.id)).toEqual([]);
    // On both timelines, in plain words; another producer's operation is not named on either.
    for (const { kase } of [first, second]) {
      const flags = await flagsOn(kase.id);
      expect(flags).toHaveLength(1);
      expect(flags[0]?.evidence).toMatchObject({
        text: "Suspected paid duplicate: the same video was delivered for another producer's operation",
        sameProducer: false,
      });
      expect(JSON.stringify(flags[0]?.evidence)).not.toContain(
        kase.id === first.kase.id ? second.kase.operationId : first.kase.operationId,
      );
    }
    const financeUser = await makeUser(db, ["finance"]);
    const listed = await listDuplicateOutputs(db, financeUser);
    const item = listed.find((i) => i.id === pairs[0]?.id);
    expect(item?.first.hidden).toBe(false);
    expect(item?.second.hidden).toBe(false);
    const sides = [item?.first, item?.second].flatMap((s) => (s && !s.hidden ? [s] : []));
    expect(sides.map((s) => s.operationId).sort()).toEqual([first.kase.operationId, second.kase.operationId].sort());
    expect(sides.map((s) => s.cost?.amountMicros)).toEqual([100_000, 100_000]);
    const families = await metricsSnapshot(db);
    const metric = families.find((f) => f.name === "recovery_duplicate_outputs_total");
    expect(metric?.samples[0]?.value).toBeGreaterThanOrEqual(1);
  });

  it("shows a person scoped to one producer only that the other producer's case exists", async () => {
    const first = await approvedDelivery("dup-east-shop", "shared-video-2");
    const second = await approvedDelivery("dup-west-shop", "shared-video-2");
    await runTick(ctx, worker(), { maxTasks: 10 });
    const scoped = { ...(await makeUser(db, ["finance"])), producers: ["dup-east-shop"] };
    const [own] = await listDuplicateOutputs(db, scoped, { caseId: first.kase.id });
    expect(own).toBeDefined();
    const sides = [own?.first, own?.second];
    expect(sides.filter((s) => s?.hidden)).toHaveLength(1);
    expect(JSON.stringify(own)).not.toContain(second.kase.operationId);
    expect(JSON.stringify(own)).not.toContain(second.kase.id);
    // Finance's list keeps the pair (one side is theirs) with the other side hidden ...
    const listed = await listDuplicateOutputs(db, scoped);
    expect(listed.find((i) => i.id === own?.id)).toEqual(own);
    // ... and a person of neither producer sees no pair at all.
    const outsider = { ...(await makeUser(db, ["finance"])), producers: ["dup-elsewhere-shop"] };
    expect((await listDuplicateOutputs(db, outsider)).find((i) => i.id === own?.id)).toBeUndefined();
  });

  it("records exactly one pair when two copies of the same bytes publish at the same moment", async () => {
    const late = await approvedDelivery("dup-race-shop", "shared-video-3");
    const early = await parkCase(db, producer("dup-race-other-shop"), parkInput("delivery"));
    const earlyCase = await db.case.findUniqueOrThrow({ where: { id: String(early.caseId) } });
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let published: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      published = resolve;
    });
    // Connection 1: another delivery of the same bytes publishes and checks, and has not committed.
    const first = db.$transaction(
      async (tx) => {
        await lockOutputDigests(tx, [late.sha256]);
        await tx.asset.create({
          data: {
            caseId: earlyCase.id,
            attemptRef: earlyCase.attemptRef,
            actionId: randomUUID(),
            fencingToken: 1n,
            outputIndex: 0,
            storageKey: `race/${earlyCase.id}/0`,
            sha256: late.sha256,
            sizeBytes: 16n * 1024n,
            publishedAt: new Date(),
          },
        });
        const found = await flagDuplicateOutputs(tx, worker(), [`race/${earlyCase.id}/0`]);
        published();
        await gate;
        return found;
      },
      { timeout: 60_000 },
    );
    await held;
    // Connection 2: the worker's delivery of the same bytes, which publishes while the first is open.
    const tick = runTick(ctx, worker(), { maxTasks: 10 });
    await waitForLockWaiter();
    release();
    expect(await first).toBe(0);
    const ticked = await tick;
    expect(ticked.results.find((r) => r.caseId === late.kase.id)?.outcome).toBe("resolved");
    const pairs = await pairsOf(late.kase.id);
    expect(pairs).toHaveLength(1);
    expect(new Set([pairs[0]?.firstCaseId, pairs[0]?.secondCaseId])).toEqual(new Set([earlyCase.id, late.kase.id]));
    expect(await flagsOn(earlyCase.id)).toHaveLength(1);
    expect(await flagsOn(late.kase.id)).toHaveLength(1);
    // Looking again (either side) records nothing more.
    expect(await db.$transaction((tx) => flagDuplicateOutputs(tx, worker(), [`race/${earlyCase.id}/0`]))).toBe(0);
  });

  it("names the other operation within one producer, and never flags one attempt's own copies", async () => {
    const shop = "dup-same-shop";
    const one = await parkCase(db, producer(shop), parkInput("delivery"));
    const two = await parkCase(db, producer(shop), parkInput("delivery"));
    const [a, b] = await Promise.all(
      [one, two].map((p) => db.case.findUniqueOrThrow({ where: { id: String(p.caseId) } })),
    );
    if (!a || !b) throw new Error("cases not parked");
    const sha256 = "ab".repeat(32);
    await publishedAsset(db, a, { storageKey: `same/${a.id}/0`, sizeBytes: 10, sha256 });
    // The same job's second output with identical bytes: one attempt, paid once.
    await db.asset.create({
      data: {
        caseId: a.id,
        attemptRef: a.attemptRef,
        actionId: randomUUID(),
        fencingToken: 1n,
        outputIndex: 1,
        storageKey: `same/${a.id}/again`,
        sha256,
        sizeBytes: 10n,
        publishedAt: new Date(),
      },
    });
    expect(await db.$transaction((tx) => flagDuplicateOutputs(tx, worker(), [`same/${a.id}/again`]))).toBe(0);
    await publishedAsset(db, b, { storageKey: `same/${b.id}/0`, sizeBytes: 10, sha256 });
    // Both of a's copies match b's: two pairs of copies, each recorded once.
    expect(await db.$transaction((tx) => flagDuplicateOutputs(tx, worker(), [`same/${b.id}/0`]))).toBe(2);
    const flags = await flagsOn(b.id);
    expect(flags[0]?.evidence).toMatchObject({
      text: `Suspected paid duplicate: the same video was delivered for operation ${a.operationId}`,
      otherOperationId: a.operationId,
    });
  });

  it("the migration's backfill finds pairs published before it, once", async () => {
    const sql = readFileSync("prisma/migrations/20261207140000_duplicate_outputs/migration.sql", "utf8");
    const backfill = sql.slice(
      sql.indexOf('INSERT INTO "output_duplicates"'),
      sql.indexOf("DO NOTHING;") + "DO NOTHING".length,
    );
    const one = await parkCase(db, producer("dup-old-shop"), parkInput("delivery"));
    const two = await parkCase(db, producer("dup-older-shop"), parkInput("delivery"));
    const [a, b] = await Promise.all(
      [one, two].map((p) => db.case.findUniqueOrThrow({ where: { id: String(p.caseId) } })),
    );
    if (!a || !b) throw new Error("cases not parked");
    const sha256 = "cd".repeat(32);
    await publishedAsset(db, a, { storageKey: `old/${a.id}/0`, sizeBytes: 10, sha256 });
    const gone = await publishedAsset(db, b, { storageKey: `old/${b.id}/0`, sizeBytes: 10, sha256 });
    // Retention deleted one file: its row and digest stay, and still match.
    await db.asset.update({ where: { id: gone.id }, data: { deletedAt: new Date() } });
    expect(await pairsOf(a.id)).toEqual([]);
    await db.$executeRawUnsafe(backfill);
    await db.$executeRawUnsafe(backfill);
    expect(await pairsOf(a.id)).toHaveLength(1);
  });
});
