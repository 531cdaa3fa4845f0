import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { createPrismaClient } from "../../../lib/db/client";
import { simulatorAdapters } from "../../../lib/providers";
import { localStorage } from "../../../lib/storage/local-storage";
import { pacedAdapters, providerPacesFromEnv } from "../../../lib/worker/provider-pace";
import { runTick } from "../../../lib/worker/run-tick";
import type { WorkerContext } from "../../../lib/worker/worker-context";

export type DrainConfig = {
  loops: number;
  /** WORKER_MAX_TASKS: actions one tick claims. */
  maxTasks: number;
  /** WORKER_CONCURRENCY: actions one tick runs at once. */
  concurrency: number;
  /** How long an idle loop waits before its next tick (scripts/worker.ts WORKER_INTERVAL_MS). */
  idleMs: number;
  /** REPLICATE_REQUESTS_PER_SECOND: client-side pacing of the provider API; unset means unpaced. */
  pacedAt?: number;
};

/**
 * `loops` worker loops in this process, each calling run-tick back to back while it finds work
 * (like scripts/worker.ts calling the tick route) on one shared WorkerContext (like one app
 * instance serving them all, with that instance's pool of 10 connections), with the adapters
 * pointed at the simulator. Timed from the first tick until every case is resolved.
 */
export async function runDrain(
  url: string,
  simulatorUrl: string,
  input: { config: DrainConfig },
): Promise<{ seconds: number; ticks: number; outcomes: Record<string, number> }> {
  const { config } = input;
  const db = createPrismaClient(url);
  const assetDir = await mkdtemp(path.join(os.tmpdir(), "bench-drain-assets-"));
  const ctx: WorkerContext = {
    db,
    // The same path a deployment takes from REPLICATE_REQUESTS_PER_SECOND.
    adapters: pacedAdapters(
      simulatorAdapters(simulatorUrl),
      providerPacesFromEnv(db, { REPLICATE_REQUESTS_PER_SECOND: config.pacedAt?.toString() }),
    ),
    storage: localStorage(assetDir),
    budgetMs: 25_000,
    leaseSeconds: 60,
    pollBaseSeconds: 30,
    pollMaxSeconds: 900,
    concurrency: config.concurrency,
    maxDownloadBytes: 10 * 1024 * 1024,
    random: Math.random,
  };
  const previousLog = process.env.WORKER_LOG;
  process.env.WORKER_LOG = "0";
  const outcomes: Record<string, number> = {};
  let ticks = 0;
  let stop = false;
  const loop = async (index: number) => {
    const actor = { kind: "worker", tokenId: randomUUID(), name: "bench", workerId: `drain-${index}` } as const;
    while (!stop) {
      const tick = await runTick(ctx, actor, { maxTasks: config.maxTasks });
      ticks += 1;
      for (const result of tick.results) outcomes[result.outcome] = (outcomes[result.outcome] ?? 0) + 1;
      if (tick.claimed === 0) await new Promise((resolve) => setTimeout(resolve, config.idleMs));
    }
  };
  const watcher = new pg.Client({ connectionString: url });
  await watcher.connect();
  let loops: Promise<void>[] = [];
  try {
    await db.$queryRaw`SELECT 1`;
    const started = performance.now();
    let failure: unknown;
    loops = Array.from({ length: config.loops }, (_, index) =>
      loop(index).catch((error: unknown) => {
        failure ??= error;
      }),
    );
    let seconds = 0;
    while (!seconds) {
      if (failure) throw failure;
      await new Promise((resolve) => setTimeout(resolve, 100));
      const { rows } = await watcher.query<{ open: string }>(
        "SELECT count(*) AS open FROM cases WHERE state <> 'resolved'",
      );
      if (Number(rows[0]?.open) === 0) seconds = (performance.now() - started) / 1000;
      else if (performance.now() - started > 300_000) throw new Error("the drain did not finish within 5 minutes");
    }
    return { seconds, ticks, outcomes };
  } finally {
    stop = true;
    await Promise.allSettled(loops);
    if (previousLog === undefined) delete process.env.WORKER_LOG;
    else process.env.WORKER_LOG = previousLog;
    await watcher.end();
    await db.$disconnect();
    await rm(assetDir, { recursive: true, force: true });
  }
}
