import { AsyncLocalStorage } from "node:async_hooks";
import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrismaClient, type PrismaClient } from "@/lib/db/client";
import {
  byProvider,
  PROVIDER_NAMES,
  type ProviderAdapter,
  type ProviderAdapters,
  type ProviderName,
  simulatorAdapters,
} from "@/lib/providers";
import { approveCase } from "@/lib/services/case/approve-case";
import { parkCase } from "@/lib/services/case/park-case";
import { localStorage } from "@/lib/storage/local-storage";
import { runTick } from "@/lib/worker/run-tick";
import type { WorkerContext } from "@/lib/worker/worker-context";
import { type FaultRuleInput, type RunningSimulator, startSimulator } from "@/verification/simulator";
import type { JobSpec } from "@/verification/simulator/jobs";
import { newJobId } from "@/verification/simulator/providers";
import { makeUser, parkInput, producer, worker } from "./fixtures";
import { startWebhookReceiver, type WebhookReceiver } from "./helpers/webhook-receiver";
import { TEST_RECEIVERS } from "./helpers/worker-context";
import { openTestDb } from "./setup/test-db";

process.env.WORKER_LOG = "0";

const CASES = 500;
const WORKERS = 4;
/**
 * Only guards against a hang: the worker phase normally quiets down well within it (docs/performance.md §8).
 * Scaled from the seeding this run just timed (the same cases, on the machine as loaded now), so a
 * busy machine stretches the bound with the work instead of failing a product that is right.
 */
const runBoundMs = (seededMs: number) => Math.min(20 * 60_000, Math.max(90_000, 10 * seededMs));
const SEED = 0x5eed_2026;

/** Small deterministic PRNG so a failing run can be replayed with the same plan and faults. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Final = "resolved" | "parked" | "ready";
type JobKind = "fast" | "slow" | "failed" | "canceled" | "stuck" | "not_found" | "late_visible" | "expired";
type FaultKind =
  | "none"
  | "delay_status"
  | "delay_download"
  | "rate_limit_short"
  | "rate_limit_long"
  | "http_500_once"
  | "http_500_exhausted"
  | "reset_once"
  | "corrupt"
  | "truncate";
type Plan = {
  index: number;
  provider: ProviderName;
  model: string;
  stage: "polling" | "delivery";
  kind: JobKind;
  fault: FaultKind;
  jobId: string;
  spec: JobSpec;
  allowed: Final[];
};

const REPLICATE_MODELS = ["minimax/video-01", "kwaivgi/kling-v2.1", "google/veo-3-fast"];
const FAL_MODELS = ["fal-ai/kling-video/v2.5-turbo", "fal-ai/minimax/video-01-live", "fal-ai/veo3/fast"];
const RUNWAY_MODELS = ["gen4_turbo", "gen4.5", "veo3.1_fast"];
const VEO_MODELS = ["veo-3.1-generate-preview", "veo-3.1-fast-generate-preview", "veo-2.0-generate-001"];
const LUMA_MODELS = ["ray-2", "ray-flash-2"];
const MODELS: Record<ProviderName, string[]> = {
  replicate: REPLICATE_MODELS,
  fal: FAL_MODELS,
  runway: RUNWAY_MODELS,
  veo: VEO_MODELS,
  luma: LUMA_MODELS,
};

function pick<T>(random: () => number, items: readonly T[]): T {
  const item = items[Math.floor(random() * items.length)];
  if (item === undefined) throw new Error("empty choice");
  return item;
}

/** What each case should end as, given its job and its fault. */
function allowedFinals(kind: JobKind, fault: FaultKind): Final[] {
  // A long throttle is waited out in either stage (a delivery waits like a poll, decision 043).
  const statusFatal = fault === "http_500_exhausted";
  const downloadFatal = fault === "corrupt" || fault === "truncate";
  switch (kind) {
    case "fast":
      return statusFatal || downloadFatal ? ["parked"] : ["resolved"];
    case "slow":
      return statusFatal || downloadFatal ? ["parked"] : ["resolved", "ready"];
    case "stuck":
      return statusFatal ? ["parked"] : ["ready"];
    case "late_visible":
      return ["resolved", "parked"];
    default:
      return ["parked"];
  }
}

function buildPlan(random: () => number): Plan[] {
  const plans: Plan[] = [];
  for (let index = 0; index < CASES; index++) {
    const provider = pick(random, PROVIDER_NAMES);
    const model = pick(random, MODELS[provider]);
    const roll = random();
    const kind: JobKind =
      roll < 0.46
        ? "fast"
        : roll < 0.56
          ? "slow"
          : roll < 0.68
            ? "failed"
            : roll < 0.72
              ? "canceled"
              : roll < 0.8
                ? "stuck"
                : roll < 0.86
                  ? "not_found"
                  : roll < 0.92
                    ? "late_visible"
                    : "expired";
    const deliveryLikely = kind === "fast" || kind === "expired" ? 0.45 : kind === "failed" ? 0.2 : 0;
    const stage = random() < deliveryLikely ? "delivery" : "polling";
    const jobId = newJobId(provider);
    const spec: JobSpec = { provider, id: jobId, model, queuedMs: 0, runningMs: 0, outputBytes: 4 * 1024 };
    if (kind === "slow") spec.runningMs = 800 + Math.floor(random() * 1_200);
    if (kind === "failed") {
      spec.outcome = "failed";
      spec.errorOnStatus = random() < 0.5;
      spec.error = "Simulated CUDA out of memory";
    }
    if (kind === "canceled") spec.outcome = "canceled";
    if (kind === "stuck") spec.outcome = "stuck";
    if (kind === "not_found") spec.notFoundForMs = 3_600_000;
    if (kind === "late_visible") spec.notFoundForMs = 300 + Math.floor(random() * 1_500);
    if (kind === "expired") {
      spec.outputTtlMs = 0;
      spec.resultTtlMs = 3_600_000;
    }
    const downloads = kind === "fast" || kind === "slow";
    const faultRoll = random();
    let fault: FaultKind = "none";
    if (faultRoll < 0.4) {
      const choices: FaultKind[] = [
        "delay_status",
        "rate_limit_short",
        "rate_limit_long",
        "http_500_once",
        "http_500_exhausted",
        "reset_once",
        ...(downloads ? (["delay_download", "corrupt", "truncate"] as const) : []),
      ];
      fault = pick(random, choices);
    }
    plans.push({ index, provider, model, stage, kind, fault, jobId, spec, allowed: allowedFinals(kind, fault) });
  }
  return plans;
}

function faultRule(plan: Plan, random: () => number): FaultRuleInput | null {
  const jobId = plan.jobId;
  switch (plan.fault) {
    case "none":
      return null;
    case "delay_status":
      return {
        match: { jobId, route: "status" },
        fault: { type: "delay", ms: 50 + Math.floor(random() * 250) },
        times: 1,
      };
    case "delay_download":
      return {
        match: { jobId, route: "download" },
        fault: { type: "delay", ms: 50 + Math.floor(random() * 250) },
        times: 1,
      };
    case "rate_limit_short":
      // Within the adapter's patience: it waits and asks again.
      return { match: { jobId, route: "status" }, fault: { type: "rate_limit", retryAfterSeconds: 1 }, times: 1 };
    case "rate_limit_long":
      // Beyond it: the check ends as throttled and is rescheduled, whatever the stage.
      return { match: { jobId, route: "status" }, fault: { type: "rate_limit", retryAfterSeconds: 2 }, times: 1 };
    case "http_500_once":
      return { match: { jobId, route: "status" }, fault: { type: "http_error", status: 500 }, times: 1 };
    case "http_500_exhausted":
      return { match: { jobId, route: "status" }, fault: { type: "http_error", status: 500 }, times: 3 };
    case "reset_once":
      return { match: { jobId, route: "status" }, fault: { type: "reset" }, times: 1 };
    case "corrupt":
      return { match: { jobId, route: "download" }, fault: { type: "corrupt" }, times: 1 };
    case "truncate":
      return { match: { jobId, route: "download" }, fault: { type: "truncate" }, times: 1 };
  }
}

async function inPool<T>(items: T[], size: number, work: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: size }, async () => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item);
    }),
  );
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** A Veo file is `/veo/v1beta/files/{id}:download`; every other output is `/delivery/{provider}/{id}/…`. */
const jobIdOfOutput = (output: Parameters<ProviderAdapter["downloadOutput"]>[0]) => {
  const url = new URL(typeof output === "string" ? output : output.url);
  const parts = url.pathname.split("/").filter(Boolean);
  if (parts[0] === "veo") return parts[3]?.replace(/:download$/, "") ?? url.pathname;
  return parts[2] ?? url.pathname;
};
/** A Veo operation name ends in the simulator's job id; the other providers' ids are the job id. */
const providerJobIdOf = (plan: Pick<Plan, "provider" | "model" | "jobId">) =>
  plan.provider === "veo" ? `models/${plan.model}/operations/${plan.jobId}` : plan.jobId;

/**
 * Wraps the adapters so every provider call is attributed to the action whose job it touches.
 * Two calls for the same action in flight at once mean two workers are executing one action.
 */
function guardedAdapters(
  inner: ProviderAdapters,
  actionOfJob: Map<string, string>,
  currentWorker: AsyncLocalStorage<string>,
  overlaps: string[],
): ProviderAdapters {
  const inFlight = new Map<string, string>();
  const guard = async <T>(jobId: string, call: () => Promise<T>): Promise<T> => {
    const actionId = actionOfJob.get(jobId) ?? `unknown:${jobId}`;
    const me = currentWorker.getStore() ?? "?";
    const holder = inFlight.get(actionId);
    if (holder !== undefined) overlaps.push(`action ${actionId}: ${me} started while ${holder} was running`);
    inFlight.set(actionId, me);
    try {
      return await call();
    } finally {
      if (inFlight.get(actionId) === me) inFlight.delete(actionId);
    }
  };
  const wrap = (adapter: ProviderAdapter): ProviderAdapter => ({
    provider: adapter.provider,
    capabilities: adapter.capabilities,
    getJob: (ref, options) => guard(ref.providerJobId.split("/").at(-1) ?? "", () => adapter.getJob(ref, options)),
    downloadOutput: (output, sink, options) =>
      guard(jobIdOfOutput(output), () => adapter.downloadOutput(output, sink, options)),
  });
  return {
    replicate: wrap(inner.replicate),
    fal: wrap(inner.fal),
    runway: wrap(inner.runway),
    veo: wrap(inner.veo),
    luma: wrap(inner.luma),
  };
}

const { url: databaseUrl } = openTestDb();
let db: PrismaClient;
let sim: RunningSimulator;
let receiver: WebhookReceiver;
let assetDir: string;
const shop = producer("run-shop");

beforeAll(async () => {
  db = createPrismaClient(databaseUrl, 16);
  sim = await startSimulator({ port: 0, timings: { queuedMs: 0, runningMs: 0, outputBytes: 4 * 1024 } });
  assetDir = await mkdtemp(path.join(tmpdir(), "worker-run-assets-"));
  const secret = `whsec_${randomBytes(32).toString("base64")}`;
  receiver = await startWebhookReceiver(secret);
  await db.notificationEndpoint.create({ data: { producer: shop.name, url: receiver.url, signingSecret: secret } });
});

afterAll(async () => {
  await receiver?.stop();
  await sim?.stop();
  await db?.$disconnect();
  if (assetDir) await rm(assetDir, { recursive: true, force: true });
});

describe("a worker run over 500 parked cases with random faults and 4 concurrent loops", () => {
  it(
    "creates nothing, settles every case with evidence, never runs an action twice at once, notifies once",
    async () => {
      const random = mulberry32(SEED);
      const plans = buildPlan(random);
      const seedingStarted = Date.now();
      const reviewer = await makeUser(db, ["reviewer"]);

      // Park and approve every case first (the jobs exist at the provider from the moment we seed them).
      const caseOfPlan = new Map<number, string>();
      const actionOfJob = new Map<string, string>();
      await inPool(plans, 8, async (plan) => {
        const { caseId } = await parkCase(
          db,
          shop,
          parkInput(plan.stage, { provider: plan.provider, model: plan.model, providerJobId: providerJobIdOf(plan) }),
        );
        const { actionId } = await approveCase(db, reviewer, caseId, {
          action: plan.stage === "polling" ? "resume_poll" : "retry_delivery",
          evidence: `run check ${plan.index}: ${plan.kind}`,
        });
        caseOfPlan.set(plan.index, caseId);
        actionOfJob.set(plan.jobId, actionId);
      });
      for (const plan of plans) {
        sim.state.seedJob(plan.spec);
        const rule = faultRule(plan, random);
        if (rule) sim.state.faults.add(rule);
      }

      const currentWorker = new AsyncLocalStorage<string>();
      const overlaps: string[] = [];
      const ctx: WorkerContext = {
        db,
        adapters: guardedAdapters(
          simulatorAdapters(sim.url, {
            retry: {
              maxAttempts: 3,
              baseDelayMs: 20,
              maxDelayMs: 200,
              perAttemptTimeoutMs: 2_000,
              maxRetryAfterMs: 1_500,
            },
            random,
          }),
          actionOfJob,
          currentWorker,
          overlaps,
        ),
        storage: localStorage(assetDir),
        budgetMs: 15_000,
        leaseSeconds: 30,
        pollBaseSeconds: 1,
        pollMaxSeconds: 2,
        concurrency: 4,
        maxDownloadBytes: 1024 * 1024,
        random,
        webhookAllowList: TEST_RECEIVERS,
      };

      // Quiet means: nothing claimed, nothing due except jobs already seen running (rescheduled at
      // least twice, so the reschedule-and-check-again path ran), and no webhook left to send.
      const quiet = async () => {
        const [row] = await db.$queryRaw<{ claimed: bigint; pending: bigint; unsent: bigint }[]>`
        SELECT
          count(*) FILTER (WHERE a.status = 'claimed') AS claimed,
          count(*) FILTER (WHERE a.status = 'ready' AND (last.kind IS DISTINCT FROM 'check_rescheduled' OR checks.n < 2))
            AS pending,
          (SELECT count(*) FROM notification_outbox WHERE delivered_at IS NULL AND give_up_at IS NULL) AS unsent
        FROM recovery_actions a
        LEFT JOIN LATERAL (SELECT kind FROM audit_events e WHERE e.case_id = a.case_id ORDER BY e.id DESC LIMIT 1) last
          ON true
        LEFT JOIN LATERAL (SELECT count(*) AS n FROM audit_events e
                           WHERE e.case_id = a.case_id AND e.kind = 'check_rescheduled') checks ON true`;
        return row !== undefined && row.claimed === 0n && row.pending === 0n && row.unsent === 0n;
      };

      const seededMs = Date.now() - seedingStarted;
      const started = Date.now();
      const boundMs = runBoundMs(seededMs);
      const runUntil = started + boundMs;
      let stop = false;
      let ticks = 0;
      const loop = async (i: number) => {
        const me = worker(`w${i}`);
        while (!stop && Date.now() < runUntil) {
          const result = await currentWorker.run(me.workerId, () => runTick(ctx, me, { maxTasks: 10 }));
          ticks += 1;
          if (result.claimed === 0 && result.notifications === 0) await sleep(50);
        }
      };
      const watch = async () => {
        while (!stop && Date.now() < runUntil) {
          await sleep(250);
          if (await quiet()) stop = true;
        }
        stop = true;
      };
      await Promise.all([watch(), ...Array.from({ length: WORKERS }, (_, i) => loop(i))]);
      const ranMs = Date.now() - started;
      expect(ticks).toBeGreaterThan(0);
      expect(ranMs, "the run reached quiet before its time bound").toBeLessThan(boundMs);

      // 1. The recovery path bought nothing, and cancelled or deleted nothing either.
      expect(sim.state.stats().creates).toEqual({ ...byProvider(() => 0), total: 0 });
      expect(sim.state.stats().cancels).toEqual({ ...byProvider(() => 0), total: 0 });

      // 2. No action was executed by two workers at once.
      expect(overlaps).toEqual([]);

      // Every claim of an action carried a fresh, increasing fencing token.
      const claims = await db.auditEvent.findMany({ where: { kind: "claimed" }, orderBy: { id: "asc" } });
      const lastToken = new Map<string, number>();
      for (const claim of claims) {
        const evidence = claim.evidence as { actionId: string; fencingToken: number };
        const previous = lastToken.get(evidence.actionId) ?? 0;
        expect(Number(evidence.fencingToken)).toBeGreaterThan(previous);
        lastToken.set(evidence.actionId, Number(evidence.fencingToken));
      }

      // 3. Every case ends resolved, parked with evidence, or waiting for its next check.
      const cases = await db.case.findMany({ where: { producer: shop.name } });
      expect(cases).toHaveLength(CASES);
      const byId = new Map(cases.map((c) => [c.id, c]));
      const events = await db.auditEvent.findMany({
        where: { caseId: { in: cases.map((c) => c.id) } },
        orderBy: { id: "asc" },
      });
      const eventsOf = new Map<string, typeof events>();
      for (const event of events) {
        if (!event.caseId) continue;
        const list = eventsOf.get(event.caseId) ?? [];
        list.push(event);
        eventsOf.set(event.caseId, list);
      }
      const assetsOf = new Map<string, Awaited<ReturnType<typeof db.asset.findMany>>>();
      for (const asset of await db.asset.findMany())
        assetsOf.set(asset.caseId, [...(assetsOf.get(asset.caseId) ?? []), asset]);
      const actions = await db.recoveryAction.findMany({ where: { caseId: { in: cases.map((c) => c.id) } } });
      const actionOfCase = new Map(actions.map((a) => [a.caseId, a]));
      const lastObservation = new Map<string, string>();
      for (const observation of await db.providerObservation.findMany({ orderBy: { id: "asc" } }))
        lastObservation.set(observation.caseId, observation.kind);

      const counts: Record<Final, number> = { resolved: 0, parked: 0, ready: 0 };
      const mismatches: string[] = [];
      for (const plan of plans) {
        const caseId = caseOfPlan.get(plan.index) ?? "";
        const row = byId.get(caseId);
        if (!row) throw new Error(`case of plan ${plan.index} is missing`);
        const timeline = eventsOf.get(caseId) ?? [];
        const state = row.state as string;
        if (state !== "resolved" && state !== "parked" && state !== "ready") {
          mismatches.push(`${plan.index} ${plan.kind}/${plan.fault}: left ${state}`);
          continue;
        }
        counts[state] += 1;
        if (!plan.allowed.includes(state))
          mismatches.push(`${plan.index} ${plan.kind}/${plan.fault}/${plan.stage}: ${state}`);
        if (state === "resolved") {
          expect(row.outcome).toBe("delivered");
          const expected = sim.state.expectedOutput(plan.jobId);
          const assets = assetsOf.get(caseId) ?? [];
          const published = assets.filter((a) => a.publishedAt !== null);
          expect(published).toHaveLength(1);
          expect(assets).toHaveLength(1);
          const [asset] = published;
          expect(asset?.sha256).toBe(expected?.sha256);
          const bytes = await readFile(path.join(assetDir, asset?.storageKey ?? "missing"));
          expect(createHash("sha256").update(bytes).digest("hex")).toBe(expected?.sha256);
        } else {
          expect(assetsOf.get(caseId) ?? []).toHaveLength(0);
        }
        if (state === "parked") {
          const parkedAt = timeline.findIndex((e) => e.kind === "parked");
          const ended = timeline
            .slice(parkedAt + 1)
            .filter((e) =>
              ["recovery_unresolved", "generation_failure_observed", "outputs_unavailable_observed"].includes(e.kind),
            );
          const last = ended.at(-1);
          const text = (last?.evidence as { evidence?: unknown } | null)?.evidence;
          if (typeof text !== "string" || text.length === 0)
            mismatches.push(`${plan.index}: parked without evidence after parking`);
        }
        if (state === "ready") {
          const last = timeline.at(-1);
          const action = actionOfCase.get(caseId);
          expect(last?.kind).toBe("check_rescheduled");
          expect(action?.status).toBe("ready");
          expect(action?.readyAt.getTime()).toBeGreaterThan(last?.createdAt.getTime() ?? Number.POSITIVE_INFINITY);
          expect(["running", "unknown"]).toContain(lastObservation.get(caseId));
        }
      }
      expect(mismatches).toEqual([]);
      expect(counts.resolved + counts.parked + counts.ready).toBe(CASES);
      expect(counts.resolved).toBeGreaterThan(0);
      expect(counts.parked).toBeGreaterThan(0);
      expect(counts.ready).toBeGreaterThan(0);

      // 4. Each delivered case's webhook arrived, verified, exactly once per webhook-id.
      const outbox = await db.notificationOutbox.findMany({ where: { producer: shop.name } });
      expect(outbox).toHaveLength(counts.resolved);
      expect(outbox.every((m) => m.deliveredAt !== null && m.giveUpAt === null)).toBe(true);
      expect(receiver.received.every((r) => r.verified)).toBe(true);
      const arrivals = new Map<string, number>();
      for (const r of receiver.received) arrivals.set(r.webhookId, (arrivals.get(r.webhookId) ?? 0) + 1);
      expect([...arrivals.keys()].sort()).toEqual(outbox.map((m) => m.id).sort());
      expect([...arrivals.values()].every((n) => n === 1)).toBe(true);
      for (const message of outbox) {
        expect(receiver.acceptedCount(message.id)).toBe(1);
        const delivered = receiver.received.find((r) => r.webhookId === message.id)?.payload as {
          type: string;
          data: { caseId: string };
        };
        expect(delivered.type).toBe("case.delivered");
        expect(delivered.data.caseId).toBe(message.caseId);
        expect(byId.get(message.caseId ?? "")?.state).toBe("resolved");
      }

      console.info(
        `worker run: ${CASES} cases parked and approved in ${seededMs} ms, ${ticks} ticks in ${ranMs} ms; resolved ${counts.resolved}, parked ${counts.parked}, waiting ${counts.ready}; ${receiver.received.length} webhooks`,
      );
    },
    30 * 60_000,
  );
});
