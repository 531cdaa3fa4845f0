import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isRedactedJson, REDACTED_LABEL } from "@/lib/audit/canonical";
import { verifyAuditChains } from "@/lib/audit/verify-chain";
import { env } from "@/lib/env";
import { acceptFailure } from "@/lib/services/case/accept-failure";
import { addNote } from "@/lib/services/case/add-note";
import { getCase } from "@/lib/services/case/get-case";
import { parkCase } from "@/lib/services/case/park-case";
import { resolveHold } from "@/lib/services/hold/resolve-hold";
import { webhookMessage } from "@/lib/services/notification/enqueue-notification";
import { recordDeliveryOutcome } from "@/lib/services/notification/record-delivery-outcome";
import { overviewStats } from "@/lib/services/overview/overview-stats";
import { dryRunRetention, getRetentionPolicy, saveRetentionPolicy } from "@/lib/services/retention/retention-policy";
import { runRetention, runRetentionIfDue } from "@/lib/services/retention/run-retention";
import { localStorage } from "@/lib/storage/local-storage";
import { runTick } from "@/lib/worker/run-tick";
import { startSimulator } from "@/verification/simulator";
import { makeUser, parkInput, producer, publishedAsset, worker } from "./fixtures";
import { backdateResolution } from "./helpers/backdate-resolution";
import { testWorkerContext } from "./helpers/worker-context";
import { openTestDb } from "./setup/test-db";

process.env.WORKER_LOG = "0";

// Decision 033: resolved cases lose their customer text and videos after the policy's days; the
// facts and the audit chain stay, and anything still open is left alone.
const { db, url } = openTestDb();
const verifier = new pg.Client({ connectionString: url });
let storage: ReturnType<typeof localStorage>;
let root: string;
let admin: Awaited<ReturnType<typeof makeUser>>;
let finance: Awaited<ReturnType<typeof makeUser>>;
let reviewer: Awaited<ReturnType<typeof makeUser>>;
const bot = worker();
const now = () => new Date();
/** A run that found nothing to do. */
const NOTHING = {
  redacted: 0,
  operations: 0,
  webhooks: 0,
  orphanFiles: 0,
  vaultCopiesRemoved: 0,
  filesDeleted: 0,
  fileErrors: [],
  more: false,
};
const run = () => runRetention(db, storage, bot, { now: now(), deadline: Date.now() + 10_000 });

/** A case resolved `daysAgo` days ago (failure accepted), with a note; its hold released unless kept. */
async function resolvedCase(options: { producer?: string; daysAgo: number; keepHold?: boolean; video?: boolean }) {
  const { caseId } = await parkCase(db, producer(options.producer), parkInput("generation_failed"));
  await addNote(db, reviewer, caseId, { text: "customer asked about their dog video" });
  await acceptFailure(db, reviewer, caseId, { evidence: "customer says the prompt was wrong" });
  if (!options.keepHold) {
    const hold = await db.hold.findFirstOrThrow({ where: { caseId } });
    await resolveHold(db, finance, hold.id, { kind: "release", note: "refund per ticket 42", evidence: "ticket 42" });
  }
  const kase = await db.case.findUniqueOrThrow({ where: { id: caseId } });
  expect(kase.state).toBe("resolved");
  await backdateResolution(caseId, options.daysAgo);
  let key: string | null = null;
  if (options.video) {
    key = `videos/${caseId}/0.mp4`;
    const write = await storage.begin(key);
    write.sink.end(Buffer.alloc(2048, 1));
    await write.commit();
    await publishedAsset(db, kase, { storageKey: key, sizeBytes: 2048, sha256: "ab".repeat(32) });
  }
  return { caseId, key };
}

const redactedAt = async (caseId: string) => (await db.case.findUniqueOrThrow({ where: { id: caseId } })).redactedAt;

beforeAll(async () => {
  await verifier.connect();
  root = await mkdtemp(path.join(tmpdir(), "retention-assets-"));
  storage = localStorage(root);
  admin = await makeUser(db, ["admin"]);
  finance = await makeUser(db, ["finance"]);
  reviewer = await makeUser(db, ["reviewer"]);
  await saveRetentionPolicy(db, admin, { producer: null, days: 30 });
});
afterAll(async () => {
  await verifier.end();
});

describe("retention by policy", () => {
  it("redacts a case resolved longer ago than the policy: text replaced, facts kept, video deleted, chain verifies", async () => {
    const { caseId, key } = await resolvedCase({ daysAgo: 31, video: true });
    await db.operation.updateMany({
      where: { case: { id: caseId } },
      data: { requestSummary: { prompt: "a dog on a skateboard" } },
    });
    const before = await db.case.findUniqueOrThrow({ where: { id: caseId }, include: { holds: true } });
    const ledger = () => db.ledgerEntry.findMany({ where: { hold: { caseId } }, orderBy: { kind: "asc" } });
    const entriesBefore = await ledger();
    expect(entriesBefore.map((e) => e.note)).toContain("refund per ticket 42");
    const hashesBefore = (await db.auditEvent.findMany({ where: { caseId }, orderBy: { chainSeq: "asc" } })).map(
      (e) => [e.hash, e.evidenceDigest],
    );
    const result = await run();
    expect(result.redacted).toBeGreaterThanOrEqual(1);
    expect(result.fileErrors).toEqual([]);

    const after = await db.case.findUniqueOrThrow({
      where: { id: caseId },
      include: { holds: true, decisions: true, operation: true },
    });
    expect(after.redactedAt).not.toBeNull();
    expect((await getCase(db, reviewer, caseId, env())).redactedAt).toBe(after.redactedAt?.toISOString());
    expect(isRedactedJson(JSON.stringify(after.lastEvidence))).toBe(true);
    expect(isRedactedJson(JSON.stringify(after.operation.requestSummary))).toBe(true);
    expect(after.decisions.every((d) => d.evidence === REDACTED_LABEL)).toBe(true);
    expect(after.holds[0]?.decisionNote).toBe(REDACTED_LABEL);
    // The facts finance and audits need stay as they were.
    expect(after.holds[0]?.amountMicros).toBe(before.holds[0]?.amountMicros);
    expect(after.holds[0]?.status).toBe("released");
    expect(after.outcome).toBe(before.outcome);
    expect(after.resolvedAt).toEqual(before.resolvedAt);
    // The ledger keeps every entry as it was, but finance's note (the hold note's words) goes too.
    expect(await ledger()).toEqual(entriesBefore.map((e) => ({ ...e, note: e.note === null ? null : REDACTED_LABEL })));

    const events = await db.auditEvent.findMany({ where: { caseId }, orderBy: { chainSeq: "asc" } });
    const withText = events.filter((e) => e.kind !== "case_redacted" && e.evidence !== null);
    expect(withText.length).toBeGreaterThan(0);
    expect(
      withText.filter((e) => !isRedactedJson(JSON.stringify(e.evidence))).map((e) => [e.kind, e.evidence]),
    ).toEqual([]);
    expect(JSON.stringify(events.map((e) => [e.before, e.after, e.evidence]))).not.toContain("dog video");
    // Every digest and hash is what it was: the chain hashes the digests, not the text.
    const hashesAfter = events.filter((e) => e.kind !== "case_redacted").map((e) => [e.hash, e.evidenceDigest]);
    expect(hashesAfter).toEqual(hashesBefore);
    const record = events.at(-1);
    expect(record?.kind).toBe("case_redacted");
    expect(record?.evidence).toMatchObject({ retentionDays: 30, videosDeleted: 1, bytesDeleted: 2048 });

    const asset = await db.asset.findFirstOrThrow({ where: { caseId } });
    expect(asset.deletedAt).not.toBeNull();
    expect(asset.sha256).toBe("ab".repeat(32));
    await expect(readFile(path.join(root, key ?? ""))).rejects.toThrow();
    expect(await storage.exists(key ?? "")).toBe(false);

    const report = await verifyAuditChains(verifier);
    expect(report.broken).toEqual([]);
    expect(report.brokenChains).toBe(0);
    expect(report.redactedFields).toBeGreaterThanOrEqual(withText.length);
  });

  it("leaves alone a case younger than the policy, one with a hold still held, and one with a pending replacement", async () => {
    const young = await resolvedCase({ daysAgo: 29 });
    const held = await resolvedCase({ daysAgo: 60, keepHold: true });
    const replaced = await resolvedCase({ daysAgo: 60 });
    const original = await db.case.findUniqueOrThrow({ where: { id: replaced.caseId } });
    await db.replacementRequest.create({
      data: {
        caseId: replaced.caseId,
        originalAttemptRef: original.attemptRef,
        requestedById: reviewer.userId,
        evidence: "customer wants it again",
        amountMicros: 100_000n,
        currency: "USD",
        expiresAt: new Date(Date.now() + 3_600_000),
      },
    });
    await run();
    expect(await redactedAt(young.caseId)).toBeNull();
    expect(await redactedAt(held.caseId)).toBeNull();
    expect(await redactedAt(replaced.caseId)).toBeNull();
    const request = await db.replacementRequest.findFirstOrThrow({ where: { caseId: replaced.caseId } });
    expect(request.evidence).toBe("customer wants it again");
  });

  it("follows a producer's own policy over the global one, including off", async () => {
    await saveRetentionPolicy(db, admin, { producer: "fast-shop", days: 5 });
    await saveRetentionPolicy(db, admin, { producer: "slow-shop", days: 365 });
    await saveRetentionPolicy(db, admin, { producer: "keep-shop", days: null });
    const fast = await resolvedCase({ producer: "fast-shop", daysAgo: 6 });
    const slow = await resolvedCase({ producer: "slow-shop", daysAgo: 100 });
    const kept = await resolvedCase({ producer: "keep-shop", daysAgo: 1000 });
    await run();
    expect(await redactedAt(fast.caseId)).not.toBeNull();
    expect(await redactedAt(slow.caseId)).toBeNull();
    expect(await redactedAt(kept.caseId)).toBeNull();

    // Dropping a producer's own policy puts it back under the global one.
    await saveRetentionPolicy(db, admin, { producer: "slow-shop", days: "global" });
    await run();
    expect(await redactedAt(slow.caseId)).not.toBeNull();
    const view = await getRetentionPolicy(db, admin);
    expect(view.globalDays).toBe(30);
    expect(view.producers).toEqual([
      { producer: "fast-shop", days: 5 },
      { producer: "keep-shop", days: null },
    ]);
    const audits = await db.auditEvent.findMany({
      where: { kind: "retention_policy_updated" },
      orderBy: { id: "asc" },
    });
    expect(audits.at(-1)?.before).toEqual({ producer: "slow-shop", days: 365 });
    expect(audits.at(-1)?.after).toEqual({ producer: "slow-shop", days: "global" });
  });

  it("shows in a dry run what a run would touch, and a second run touches nothing", async () => {
    await run();
    const a = await resolvedCase({ daysAgo: 40, video: true });
    await resolvedCase({ daysAgo: 35 });
    const figures = await dryRunRetention(db, admin);
    const resolvedA = (await db.case.findUniqueOrThrow({ where: { id: a.caseId } })).resolvedAt;
    expect(figures).toEqual({ cases: 2, operations: 0, oldestResolvedAt: resolvedA, bytes: 2048 });
    expect(await redactedAt(a.caseId)).toBeNull();

    const first = await run();
    expect(first).toMatchObject({ redacted: 2, filesDeleted: 1 });
    const eventsAfterFirst = await db.auditEvent.count({ where: { caseId: a.caseId } });
    const second = await run();
    expect(second).toEqual(NOTHING);
    expect(await db.auditEvent.count({ where: { caseId: a.caseId } })).toBe(eventsAfterFirst);
    expect(await dryRunRetention(db, admin)).toEqual({ cases: 0, operations: 0, oldestResolvedAt: null, bytes: 0 });
  });

  it("runs once when two workers find it due at the same moment, then not until the next interval", async () => {
    await db.retentionSchedule.update({ where: { id: true }, data: { nextRunAt: new Date(Date.now() - 1000) } });
    const at = new Date();
    const runs = await Promise.all([
      runRetentionIfDue(db, storage, worker(), { now: at, deadline: Date.now() + 10_000 }),
      runRetentionIfDue(db, storage, worker(), { now: at, deadline: Date.now() + 10_000 }),
    ]);
    expect(runs.filter((r) => r !== null)).toHaveLength(1);
    const view = await getRetentionPolicy(db, admin);
    expect(view.nextRunAt.getTime()).toBe(at.getTime() + 60 * 60 * 1000);
    expect(await runRetentionIfDue(db, storage, worker(), { deadline: Date.now() + 10_000 })).toBeNull();
    // Nothing is evicted silently: the overview (any reader of cases) shows the policy and the next run.
    const overview = await overviewStats(db, reviewer, { alertWindowMinutes: 60, alertThreshold: 5 });
    expect(overview.retention).toEqual({
      globalDays: 30,
      producerPolicies: 2,
      nextRunAt: new Date(at.getTime() + 60 * 60 * 1000).toISOString(),
    });
  });

  it("says when a run was cut short and makes the next one due at once, so a backlog drains run after run", async () => {
    await run();
    const backlog = [
      await resolvedCase({ daysAgo: 50 }),
      await resolvedCase({ daysAgo: 49 }),
      await resolvedCase({ daysAgo: 48 }),
    ];
    const schedule = () => db.retentionSchedule.findUniqueOrThrow({ where: { id: true } });
    const due = () =>
      db.retentionSchedule.update({ where: { id: true }, data: { nextRunAt: new Date(Date.now() - 1000) } });
    // Out of time before its first batch: nothing done, nothing known to be done, due again at once.
    await due();
    const late = await runRetentionIfDue(db, storage, worker(), { deadline: Date.now() - 1 });
    expect(late).toEqual({ ...NOTHING, more: true });
    expect((await schedule()).nextRunAt.getTime()).toBeLessThanOrEqual(Date.now());

    const limits = () => ({ deadline: Date.now() + 10_000, batch: 1, maxBatches: 2 });
    const first = await runRetentionIfDue(db, storage, worker(), limits());
    expect(first).toMatchObject({ redacted: 2, more: true });
    expect((await schedule()).nextRunAt.getTime()).toBeLessThanOrEqual(Date.now());
    // The next tick takes it straight away and finishes the backlog; then the run waits the interval.
    const at = new Date();
    const second = await runRetentionIfDue(db, storage, worker(), { ...limits(), now: at });
    expect(second).toMatchObject({ redacted: 1, more: false });
    expect(await schedule()).toMatchObject({ lastRedacted: 1, nextRunAt: new Date(at.getTime() + 60 * 60 * 1000) });
    for (const { caseId } of backlog) expect(await redactedAt(caseId)).not.toBeNull();
    expect(await runRetentionIfDue(db, storage, worker(), limits())).toBeNull();
  });

  it("waits for a case's notifications still due to go out, then redacts their payloads with the rest", async () => {
    await run();
    const delivered = await resolvedCase({ daysAgo: 40 });
    const givenUp = await resolvedCase({ daysAgo: 40 });
    const due = async (caseId: string) => {
      const message = webhookMessage("case.outputs_lost", { caseId, outcome: "outputs_lost" });
      await db.notificationOutbox.create({
        data: { ...message, producer: "shop-app", caseId, eventType: "case.outputs_lost" },
      });
      return message;
    };
    const messages = [await due(delivered.caseId), await due(givenUp.caseId)];
    const payloadOf = async (id: string) => (await db.notificationOutbox.findUniqueOrThrow({ where: { id } })).payload;

    // Still due: the producer hears of the case first, so neither case is touched (nor counted by a dry run).
    expect(await dryRunRetention(db, admin)).toMatchObject({ cases: 0 });
    await run();
    expect(await redactedAt(delivered.caseId)).toBeNull();
    expect(await redactedAt(givenUp.caseId)).toBeNull();
    for (const message of messages) expect(await payloadOf(message.id)).toEqual(message.payload);

    // Once delivered, or given up after its retries, the case goes with its notification's payload.
    await recordDeliveryOutcome(db, messages[0]?.id ?? "", { kind: "delivered", status: 204 });
    await recordDeliveryOutcome(db, messages[1]?.id ?? "", { kind: "no_endpoint" });
    expect(await dryRunRetention(db, admin)).toMatchObject({ cases: 2 });
    expect(await run()).toMatchObject({ redacted: 2, more: false });
    for (const [index, { caseId }] of [delivered, givenUp].entries()) {
      expect(await redactedAt(caseId)).not.toBeNull();
      expect(isRedactedJson(JSON.stringify(await payloadOf(messages[index]?.id ?? "")))).toBe(true);
      const record = await db.auditEvent.findFirstOrThrow({ where: { caseId, kind: "case_redacted" } });
      expect(record.evidence).toMatchObject({ fields: { notificationPayloads: 1 } });
    }
  });

  it("tries again for a video whose file storage refused to remove, until it is gone", async () => {
    const { caseId, key } = await resolvedCase({ daysAgo: 31, video: true });
    let refuse = true;
    const flaky: typeof storage = {
      ...storage,
      remove: async (name) => {
        if (refuse) throw new Error("device busy");
        await storage.remove(name);
      },
    };
    const retention = () => runRetention(db, flaky, bot, { now: now(), deadline: Date.now() + 10_000 });
    const first = await retention();
    expect(first).toMatchObject({ redacted: 1, filesDeleted: 0, fileErrors: [`${key}: device busy`] });
    expect(await storage.exists(key ?? "")).toBe(true);
    const waiting = await db.asset.findFirstOrThrow({ where: { caseId } });
    expect(waiting.deletedAt).not.toBeNull();
    expect(waiting.fileRemovedAt).toBeNull();
    refuse = false;
    expect(await retention()).toEqual({ ...NOTHING, filesDeleted: 1 });
    expect(await storage.exists(key ?? "")).toBe(false);
    expect((await db.asset.findFirstOrThrow({ where: { caseId } })).fileRemovedAt).not.toBeNull();
    expect(await retention()).toEqual(NOTHING);
  });

  it("is run by the worker's tick when due, with the worker's storage", async () => {
    const sim = await startSimulator({ port: 0 });
    try {
      const ctx = await testWorkerContext(db, sim.url, { storage });
      const { caseId, key } = await resolvedCase({ daysAgo: 45, video: true });
      await db.retentionSchedule.update({ where: { id: true }, data: { nextRunAt: new Date(Date.now() - 1000) } });
      await runTick(ctx, worker(), { maxTasks: 1 });
      expect(await redactedAt(caseId)).not.toBeNull();
      expect(await storage.exists(key ?? "")).toBe(false);
      const schedule = await db.retentionSchedule.findUniqueOrThrow({ where: { id: true } });
      expect(schedule.lastRedacted).toBe(1);
      expect(schedule.nextRunAt.getTime()).toBeGreaterThan(Date.now() + 59 * 60 * 1000);
    } finally {
      await sim.stop();
    }
  });

  it("lets only an admin see or set the policy or dry-run it", async () => {
    await expect(getRetentionPolicy(db, finance)).rejects.toMatchObject({ code: "forbidden" });
    await expect(dryRunRetention(db, reviewer)).rejects.toMatchObject({ code: "forbidden" });
    await expect(saveRetentionPolicy(db, reviewer, { producer: null, days: 1 })).rejects.toMatchObject({
      code: "forbidden",
    });
    await expect(saveRetentionPolicy(db, admin, { producer: null, days: "global" })).rejects.toMatchObject({
      code: "invalid_request",
    });
  });
});
