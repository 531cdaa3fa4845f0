import { createHash } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import type { PrismaClient } from "@/lib/db/client";
import type { Role } from "@/lib/domain/roles";
import { env } from "@/lib/env";
import { simulatorAdapters } from "@/lib/providers";
import type { UserActor } from "@/lib/services/access/actor";
import { createAccessToken } from "@/lib/services/access/create-access-token";
import { localStorage } from "@/lib/storage/local-storage";
import type { WorkerContext } from "@/lib/worker/worker-context";
import { type RunningSimulator, startSimulator } from "@/verification/simulator";
import { DbTime } from "./db-time";
import { faultyAdapters, type Interleave } from "./faulty-adapters";
import { faultyStorage } from "./faulty-storage";
import { producerEndpoint } from "./faulty-webhooks";
import { newInvoiceBook } from "./invoices";
import { LogicalClock } from "./logical-clock";
import { PRODUCER_COUNT, planOperation } from "./op-plan";
import { Rng, seedOf } from "./random";
import { Schedule } from "./schedule";
import type { SimWorker } from "./sim-worker";
import { Trace } from "./trace";
import { FIGURES, type Figure, opKey, type People, type ShopProducer, type World } from "./world";

/** Shops on one provider account; each has its own API key and its own signed webhook endpoint. */
async function createProducers(db: PrismaClient, seed: number): Promise<ShopProducer[]> {
  const producers: ShopProducer[] = [];
  for (let i = 0; i < PRODUCER_COUNT; i++) {
    const name = i === 0 ? "sim-shop" : `sim-shop-${i + 1}`;
    const endpointUrl = `https://${name}.example/hooks/video`;
    const webhookSecret = `whsec_${createHash("sha256").update(`webhooks ${seed} ${name}`).digest("base64")}`;
    await db.notificationEndpoint.create({ data: { producer: name, url: endpointUrl, signingSecret: webhookSecret } });
    const key = await createAccessToken(db, "cli", { kind: "api_key", name });
    producers.push({
      principal: { kind: "api_key", apiKeyId: key.id, name },
      apiKey: key.secret,
      endpointUrl,
      webhookSecret,
    });
  }
  return producers;
}

async function person(db: PrismaClient, email: string, roles: Role[]): Promise<UserActor> {
  const user = await db.user.create({ data: { email, name: email.split("@")[0] ?? email, roles } });
  return { kind: "user", userId: user.id, email, name: user.name, roles, producers: null };
}

async function createPeople(db: PrismaClient): Promise<People> {
  return {
    reviewers: [await person(db, "rita@sim.local", ["reviewer"]), await person(db, "raj@sim.local", ["reviewer"])],
    finance: [await person(db, "fay@sim.local", ["finance"]), await person(db, "finn@sim.local", ["finance"])],
    dual: await person(db, "dana@sim.local", ["reviewer", "finance"]),
  };
}

/**
 * The shops' SDK calls and the providers' webhooks go through the product's own route handlers,
 * which read their settings from the process environment once: this database (as the app role),
 * a signing secret for webhook references, the simulator's webhook keys, and no rate limit worth
 * hitting (the simulation sends days of traffic in minutes).
 */
function configureProductRoutes(url: string, seed: number, simulator: RunningSimulator) {
  const { webhooks, url: simulatorUrl } = simulator;
  Object.assign(process.env, {
    DATABASE_URL: url,
    AUTH_SECRET: createHash("sha256").update(`simulation auth secret ${seed}`).digest("hex"),
    AUTH_URL: "http://recovery.sim.local",
    REPLICATE_WEBHOOK_SECRET: webhooks.replicateSecret,
    FAL_JWKS_URL: webhooks.falJwksUrl,
    API_RATE_LIMIT_PER_MINUTE: "100000000",
    PROVIDER_MODE: "simulator",
    SIMULATOR_URL: simulatorUrl,
    SIMULATOR_TOKEN: "simulation",
  });
  if (env().DATABASE_URL !== url || env().FAL_JWKS_URL !== webhooks.falJwksUrl) {
    throw new Error(
      "the product's settings were read before the simulation could set them: run one simulation per process",
    );
  }
}

export type Environment = {
  world: World;
  contextFor(worker: SimWorker, interleave: Interleave): WorkerContext;
  stop(): Promise<void>;
};

/**
 * A world on an empty, migrated database: the provider simulator on an ephemeral port reading the
 * simulation's clock, the people, the producer's webhook endpoint, and the worker contexts built
 * from the real adapters and storage with the simulation's faults wrapped around them.
 */
export async function createEnvironment(
  db: PrismaClient,
  url: string,
  seed: number,
  jobs: number,
  onTrace?: (line: string) => void,
): Promise<Environment> {
  const clock = new LogicalClock();
  const sql = new pg.Pool({ connectionString: url, max: 2 });
  const simulator = await startSimulator({
    port: 0,
    clock: clock.asSimulatorClock(),
    timings: { outputBytes: 2048 },
    // The simulation delivers the providers' webhooks itself, on its own clock and with its faults.
    manualWebhooks: true,
  });
  configureProductRoutes(url, seed, simulator);
  const assetDir = await mkdtemp(path.join(tmpdir(), "sim-assets-"));
  const world: World = {
    seed,
    db,
    sql,
    clock,
    time: new DbTime(sql, clock),
    simulator,
    trace: new Trace(onTrace),
    schedule: new Schedule(),
    rng: new Rng(seedOf("world", seed)),
    ops: [],
    byJob: new Map(),
    lossShownAt: new Map(),
    byCase: new Map(),
    byOperationId: new Map(),
    producers: await createProducers(db, seed),
    people: await createPeople(db),
    assetDir,
    storms: [],
    producerCreates: 0,
    counters: new Map(),
    figures: Object.fromEntries(Object.keys(FIGURES).map((key) => [key, 0])) as Record<Figure, number>,
    violations: [],
    invoices: newInvoiceBook(),
  };
  for (let index = 0; index < jobs; index++) {
    const plan = planOperation(seed, index);
    const producer = world.producers[plan.producer];
    if (producer) world.byOperationId.set(opKey(producer.principal.name, plan.operationId), index);
    world.ops.push({
      plan,
      caseId: null,
      attempts: [],
      replacementsRequested: 0,
      reviews: 0,
      gaveUp: false,
      reviewPending: false,
      financePending: false,
      budget: { crashes: 0, interleaves: 0, providerFaults: 0 },
      expiredRequests: new Set(),
      webhooks: new Set(),
      episodes: 0,
      comebackPlanned: false,
      comebackTries: 0,
      ownResubmissions: 0,
      storageFailures: 0,
      storageFixed: false,
      permitSends: 0,
      crashedAfterSend: false,
    });
  }
  // One quick retry, no waiting on Retry-After (the worker reschedules instead), no real sleeps.
  const adapters = simulatorAdapters(simulator.url, {
    retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 2, perAttemptTimeoutMs: 5_000, maxRetryAfterMs: 0 },
    random: () => 0.5,
    downloadTimeoutMs: 10_000,
  });
  const storage = localStorage(assetDir);
  return {
    world,
    contextFor: (worker, interleave) => ({
      db,
      adapters: faultyAdapters(world, worker, adapters, interleave),
      storage: faultyStorage(world, worker, storage),
      fetchImpl: producerEndpoint(world, worker),
      // The shops' endpoints are in-process; their names stand for public hosts (the address check still runs).
      webhookLookup: async () => [{ address: "93.184.215.14", family: 4 }],
      budgetMs: 600_000,
      leaseSeconds: 60,
      // Whole quanta: 20 s doubling to 640 s, with jitter of 0 or 1 (half or all of the step).
      pollBaseSeconds: 20,
      pollMaxSeconds: 640,
      concurrency: 1,
      maxDownloadBytes: 1024 * 1024,
      random: () => (world.rng.chance(0.5) ? 1 : 0),
    }),
    stop: async () => {
      await simulator.stop();
      await sql.end();
      await rm(assetDir, { recursive: true, force: true });
    },
  };
}
