import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll } from "vitest";
import type { PrismaClient } from "@/lib/db/client";
import { parseWebhookAllowList } from "@/lib/notify/webhook-allow-list";
import { simulatorAdapters } from "@/lib/providers";
import { localStorage } from "@/lib/storage/local-storage";
import type { WorkerContext } from "@/lib/worker/worker-context";
import { type RunningSimulator, startSimulator } from "@/verification/simulator";

/** The test receivers listen on 127.0.0.1; production allows no such address. */
export const TEST_RECEIVERS = parseWebhookAllowList("127.0.0.1");

/**
 * A worker context for tests against the simulator at `simulatorUrl`: quick retries, a fresh asset
 * directory, one action at a time and no jitter, so a tick's outcome depends only on the scenario.
 * Webhooks may reach the test receivers on 127.0.0.1 (the allow-list WEBHOOK_ALLOWED_HOSTS gives).
 */
export async function testWorkerContext(
  db: PrismaClient,
  simulatorUrl: string,
  overrides: Partial<WorkerContext> = {},
): Promise<WorkerContext> {
  return {
    db,
    adapters: simulatorAdapters(simulatorUrl, {
      retry: { maxAttempts: 2, baseDelayMs: 20, maxDelayMs: 100, perAttemptTimeoutMs: 2_000 },
    }),
    storage: localStorage(await mkdtemp(path.join(tmpdir(), "worker-assets-"))),
    budgetMs: 15_000,
    leaseSeconds: 30,
    pollBaseSeconds: 30,
    pollMaxSeconds: 600,
    concurrency: 1,
    maxDownloadBytes: 10 * 1024 * 1024,
    random: () => 0.5,
    webhookAllowList: TEST_RECEIVERS,
    ...overrides,
  };
}

/** A simulator that answers at once, and a worker context against it, for one test file. */
export type SimulatorWorker = { sim: RunningSimulator; ctx: WorkerContext };

/**
 * Starts the simulator (jobs finish at once, 1 KB outputs) and a worker context against it before
 * the file's tests, and stops it after them. Read `sim` and `ctx` inside tests, once both exist.
 */
export function simulatorAndWorker(db: PrismaClient): SimulatorWorker {
  const running = {} as SimulatorWorker;
  beforeAll(async () => {
    running.sim = await startSimulator({ port: 0, timings: { queuedMs: 0, runningMs: 0, outputBytes: 1024 } });
    running.ctx = await testWorkerContext(db, running.sim.url);
  });
  afterAll(() => running.sim?.stop());
  return running;
}
