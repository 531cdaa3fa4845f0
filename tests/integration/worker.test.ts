import { randomBytes } from "node:crypto";
import { mkdtemp, readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { byProvider, simulatorAdapters } from "@/lib/providers";
import { approveCase } from "@/lib/services/case/approve-case";
import { parkCase } from "@/lib/services/case/park-case";
import { localStorage } from "@/lib/storage/local-storage";
import { dispatchNotifications } from "@/lib/worker/dispatch-notifications";
import { runTick } from "@/lib/worker/run-tick";
import type { WorkerContext } from "@/lib/worker/worker-context";
import { type RunningSimulator, startSimulator } from "@/verification/simulator";
import { makeUser, parkInput, producer, worker } from "./fixtures";
import { TEST_RECEIVERS } from "./helpers/worker-context";
import { openTestDb } from "./setup/test-db";

process.env.WORKER_LOG = "0";
const { db } = openTestDb();
let sim: RunningSimulator;
let assetDir: string;
let ctx: WorkerContext;
const shop = producer("worker-shop");

beforeAll(async () => {
  sim = await startSimulator({ port: 0, timings: { queuedMs: 0, runningMs: 0, outputBytes: 64 * 1024 } });
  assetDir = await mkdtemp(path.join(tmpdir(), "assets-"));
  ctx = {
    db,
    adapters: simulatorAdapters(sim.url, {
      retry: { maxAttempts: 3, baseDelayMs: 20, maxDelayMs: 200, perAttemptTimeoutMs: 2_000 },
    }),
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

async function approvedCase(stage: "polling" | "delivery", job: Parameters<RunningSimulator["state"]["seedJob"]>[0]) {
  const seeded = sim.state.seedJob(job);
  const reviewer = await makeUser(db, ["reviewer"]);
  const { caseId } = await parkCase(
    db,
    shop,
    parkInput(stage, { provider: seeded.provider, model: seeded.model, providerJobId: seeded.id }),
  );
  await approveCase(db, reviewer, caseId, {
    action: stage === "polling" ? "resume_poll" : "retry_delivery",
    evidence: "go",
  });
  return { caseId, jobId: seeded.id };
}

const tick = (w = worker(), maxTasks = 10, context = ctx) => runTick(context, w, { maxTasks });
const creates = () => sim.state.stats().creates;

describe("resume_poll", () => {
  it("completed: records the outputs, settles the hold, copies and publishes, resolves", async () => {
    const { caseId } = await approvedCase("polling", { provider: "replicate", outcome: "succeeded" });
    const result = await tick();
    expect(result.results.find((r) => r.caseId === caseId)?.outcome).toBe("resolved");
    const row = await db.case.findUniqueOrThrow({ where: { id: caseId } });
    expect(row).toMatchObject({ stage: "delivery", state: "resolved", outcome: "delivered", heldMicros: 0n });
    const hold = await db.hold.findFirstOrThrow({ where: { caseId } });
    expect(hold.status).toBe("settled");
    const observation = await db.providerObservation.findFirstOrThrow({ where: { caseId } });
    expect(observation.kind).toBe("completed");
    const asset = await db.asset.findFirstOrThrow({ where: { caseId } });
    const bytes = await readFile(path.join(assetDir, asset.storageKey));
    expect(bytes.length).toBe(Number(asset.sizeBytes));
    expect(asset.storageKey).toContain(`/claim-${asset.fencingToken}/`);
    expect(creates()).toEqual({ ...byProvider(() => 0), total: 0 });
  });

  it("still running: schedules the next check and resolves nothing", async () => {
    const { caseId } = await approvedCase("polling", { provider: "fal", outcome: "stuck" });
    const result = await tick();
    expect(result.results.find((r) => r.caseId === caseId)?.outcome).toBe("rescheduled");
    const row = await db.case.findUniqueOrThrow({ where: { id: caseId } });
    expect(row.state).toBe("ready");
    const action = await db.recoveryAction.findFirstOrThrow({ where: { caseId } });
    expect(action.status).toBe("ready");
    expect(action.readyAt.getTime()).toBeGreaterThan(Date.now() + 10_000);
    expect((await tick()).results.find((r) => r.caseId === caseId)).toBeUndefined();
  });

  it("failed: moves to generation_failed and parks for review", async () => {
    const { caseId } = await approvedCase("polling", {
      provider: "replicate",
      outcome: "failed",
      error: "NSFW content detected",
    });
    await tick();
    const row = await db.case.findUniqueOrThrow({ where: { id: caseId } });
    expect(row).toMatchObject({ stage: "generation_failed", state: "parked" });
    expect((await db.hold.findFirstOrThrow({ where: { caseId } })).status).toBe("held");
  });

  it("not found: parks with the evidence, never guessed as failed", async () => {
    const reviewer = await makeUser(db, ["reviewer"]);
    const { caseId } = await parkCase(
      db,
      shop,
      parkInput("polling", { provider: "replicate", providerJobId: "no-such-job" }),
    );
    await approveCase(db, reviewer, caseId, { action: "resume_poll", evidence: "go" });
    await tick();
    const row = await db.case.findUniqueOrThrow({ where: { id: caseId } });
    expect(row).toMatchObject({ stage: "polling", state: "parked" });
    const timeline = await db.auditEvent.findMany({ where: { caseId, kind: "recovery_unresolved" } });
    expect(JSON.stringify(timeline[0]?.evidence)).toContain("does not know job");
  });

  it("429 with Retry-After is honoured, then the check succeeds", async () => {
    const { caseId, jobId } = await approvedCase("polling", { provider: "replicate", outcome: "succeeded" });
    sim.state.faults.add({
      match: { jobId, route: "status" },
      fault: { type: "rate_limit", retryAfterSeconds: 1 },
      times: 1,
    });
    const started = Date.now();
    const result = await tick();
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(result.results.find((r) => r.caseId === caseId)?.outcome).toBe("resolved");
  });
});

describe("retry_delivery", () => {
  it("a corrupted download is detected and not published", async () => {
    const { caseId, jobId } = await approvedCase("delivery", { provider: "replicate", outcome: "succeeded" });
    sim.state.faults.add({ match: { jobId, route: "download" }, fault: { type: "corrupt" }, times: 1 });
    const result = await tick();
    expect(result.results.find((r) => r.caseId === caseId)?.outcome).toBe("parked");
    expect(await db.asset.count({ where: { caseId } })).toBe(0);
    expect((await db.case.findUniqueOrThrow({ where: { id: caseId } })).state).toBe("parked");
  });

  it("a stale worker whose lease expired mid-download publishes nothing; the newer claim's copy is published", async () => {
    const { caseId, jobId } = await approvedCase("delivery", { provider: "fal", outcome: "succeeded" });
    sim.state.faults.add({ match: { jobId, route: "download" }, fault: { type: "delay", ms: 2_500 }, times: 1 });
    const slow = tick(worker("slow"), 1, { ...ctx, leaseSeconds: 1 });
    await new Promise((resolve) => setTimeout(resolve, 1_300));
    const fast = await tick(worker("fast"), 5);
    expect(fast.results.find((r) => r.caseId === caseId)?.outcome).toBe("resolved");
    const stale = await slow;
    expect(stale.results.find((r) => r.caseId === caseId)?.outcome).toBe("lost_claim");
    const assets = await db.asset.findMany({ where: { caseId, publishedAt: { not: null } } });
    expect(assets).toHaveLength(1);
    expect(assets[0]?.fencingToken).toBe(2n);
    expect(assets.some((a) => a.storageKey.includes("claim-1"))).toBe(false);
    // The stale claim's reservation stays unpublished: the record that its key is spent.
    const spent = await db.asset.findMany({ where: { caseId, publishedAt: null } });
    expect(spent.map((a) => [a.fencingToken, a.sha256])).toEqual([[1n, null]]);
  });
});

describe("notifications", () => {
  let receiver: Server;
  let url = "";
  const received: { id: string; body: string; headers: Record<string, string> }[] = [];
  let answer = 200;
  beforeAll(async () => {
    receiver = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk) => {
        body += chunk;
      });
      req.on("end", () => {
        received.push({ id: String(req.headers["webhook-id"]), body, headers: req.headers as Record<string, string> });
        res.statusCode = answer;
        res.end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    const address = receiver.address();
    url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/hooks`;
  });
  afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

  it("are signed per Standard Webhooks, delivered once per webhook-id, and 410 disables the endpoint", async () => {
    const secret = `whsec_${randomBytes(32).toString("base64")}`;
    await db.notificationEndpoint.create({ data: { producer: shop.name, url, signingSecret: secret } });
    const { caseId } = await approvedCase("delivery", { provider: "replicate", outcome: "succeeded" });
    answer = 500;
    await tick();
    const message = await db.notificationOutbox.findFirstOrThrow({ where: { caseId } });
    expect(message.deliveredAt).toBeNull();
    await db.$executeRaw`UPDATE notification_outbox SET next_attempt_at = now() WHERE id = ${message.id}`;
    answer = 200;
    await tick();
    await tick();
    const deliveries = received.filter((r) => r.id === message.id);
    expect(deliveries).toHaveLength(2);
    const verified = new Webhook(secret).verify(deliveries[1]?.body ?? "", deliveries[1]?.headers ?? {}) as {
      type: string;
    };
    expect(verified.type).toBe("case.delivered");
    expect((await db.notificationOutbox.findUniqueOrThrow({ where: { id: message.id } })).deliveredAt).not.toBeNull();

    const second = await approvedCase("delivery", { provider: "replicate", outcome: "succeeded" });
    answer = 410;
    await tick();
    expect(
      (await db.notificationEndpoint.findUniqueOrThrow({ where: { producer: shop.name } })).disabledAt,
    ).not.toBeNull();
    expect(
      (await db.notificationOutbox.findFirstOrThrow({ where: { caseId: second.caseId } })).giveUpAt,
    ).not.toBeNull();
  });

  it("go out oldest first within a batch, whatever order the rows were written in", async () => {
    const orderedShop = "ordered-shop";
    await db.notificationEndpoint.create({
      data: { producer: orderedShop, url, signingSecret: `whsec_${randomBytes(32).toString("base64")}` },
    });
    answer = 200;
    // Written newest first, so the table's physical order is the reverse of the age order.
    const ids = Array.from({ length: 12 }, (_, i) => `msg_order_${String(i).padStart(2, "0")}`);
    for (const [i, id] of [...ids.entries()].reverse()) {
      await db.notificationOutbox.create({
        data: {
          id,
          producer: orderedShop,
          eventType: "case.delivered",
          payload: { n: i },
          createdAt: new Date(Date.UTC(2026, 10, 1, 0, i)),
          nextAttemptAt: new Date(Date.UTC(2026, 10, 1, 12, 11 - i)),
        },
      });
    }
    expect(await dispatchNotifications(ctx, Date.now() + 10_000)).toBe(ids.length);
    expect(received.map((r) => r.id).filter((id) => id.startsWith("msg_order_"))).toEqual(ids);
  });
});
