import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll } from "vitest";
import type { PrismaClient } from "@/lib/db/client";
import { type ProviderName, simulatorAdapters } from "@/lib/providers";
import { approveCase } from "@/lib/services/case/approve-case";
import { parkCase } from "@/lib/services/case/park-case";
import { localStorage } from "@/lib/storage/local-storage";
import { runTick } from "@/lib/worker/run-tick";
import type { WorkerContext } from "@/lib/worker/worker-context";
import { makeUser, parkInput, producer, worker } from "@/tests/integration/fixtures";
import { type JobSpec, type RunningSimulator, startSimulator } from "@/verification/simulator";
import type { ManualClock } from "@/verification/simulator/clock";
import { testWorkerContext } from "./worker-context";

export type ProviderRecovery = {
  sim: RunningSimulator;
  ctx: WorkerContext;
  assetDir: string;
  /** A case of the provider's seeded job, parked in `stage` and approved for its stage's recovery. */
  approvedCase(
    stage: "polling" | "delivery",
    job: Omit<JobSpec, "provider">,
  ): Promise<{ caseId: string; jobId: string }>;
  /** What one worker tick did with the case. */
  outcomeOf(caseId: string): Promise<string | undefined>;
};

/**
 * One provider's end-to-end recovery through the simulator (started with a token, so every route
 * checks the adapter's credentials), with a worker that retries a little and copies into a fresh
 * directory. `jobIdOf` names a seeded job as the provider's API does (Veo's operation name).
 */
export function providerRecovery(
  db: PrismaClient,
  options: {
    provider: ProviderName;
    model: string;
    evidence: string;
    clock?: ManualClock;
    outputTtlMs?: number;
    jobIdOf?: (id: string) => string;
  },
): ProviderRecovery {
  const shop = producer(`${options.provider}-shop`);
  const harness = {} as ProviderRecovery;
  beforeAll(async () => {
    harness.sim = await startSimulator({
      port: 0,
      token: "sim-token",
      ...(options.clock ? { clock: options.clock } : {}),
      timings: {
        queuedMs: 0,
        runningMs: 0,
        outputBytes: 32 * 1024,
        ...(options.outputTtlMs ? { outputTtlMs: options.outputTtlMs } : {}),
      },
    });
    harness.assetDir = await mkdtemp(path.join(tmpdir(), `${options.provider}-assets-`));
    harness.ctx = await testWorkerContext(db, harness.sim.url, {
      adapters: simulatorAdapters(
        harness.sim.url,
        { retry: { maxAttempts: 3, baseDelayMs: 20, maxDelayMs: 200, perAttemptTimeoutMs: 2_000 } },
        "sim-token",
      ),
      storage: localStorage(harness.assetDir),
      concurrency: 2,
    });
  });
  afterAll(() => harness.sim?.stop());
  harness.approvedCase = async (stage, job) => {
    const seeded = harness.sim.state.seedJob({ provider: options.provider, model: options.model, ...job });
    const reviewer = await makeUser(db, ["reviewer"]);
    const providerJobId = options.jobIdOf ? options.jobIdOf(seeded.id) : seeded.id;
    const { caseId } = await parkCase(
      db,
      shop,
      parkInput(stage, { provider: options.provider, model: seeded.model, providerJobId }),
    );
    await approveCase(db, reviewer, caseId, {
      action: stage === "polling" ? "resume_poll" : "retry_delivery",
      evidence: options.evidence,
    });
    return { caseId: String(caseId), jobId: seeded.id };
  };
  harness.outcomeOf = async (caseId) =>
    (await runTick(harness.ctx, worker(), { maxTasks: 10 })).results.find((r) => r.caseId === caseId)?.outcome;
  return harness;
}
