import { drainChecks } from "./lib/drain-checks";
import { type DrainConfig, runDrain } from "./lib/drain-run";
import { seedDrain } from "./lib/drain-seed";
import { startDrainSimulator } from "./lib/drain-simulator";
import { measured, postmasterOf } from "./lib/queue-machine";
import type { BenchCheck, BenchContext, BenchPart, BenchRow } from "./lib/types";

/**
 * Draining approved status checks against a rate-limited provider: 2,000 `resume_poll` actions
 * whose jobs already finished, the simulator answering after 100 ms and allowing 100 requests/s
 * (429 with Retry-After beyond that), four worker loops running the real tick. One status request
 * resolves each action, so the rate limit alone bounds the drain at 2,000 / 100 = 20 s.
 */
const PART = "drain";
const ACTIONS = 2_000;
const REQUESTS_PER_SECOND = 100;
const LATENCY_MS = 100;

/**
 * Four loops, each tick claiming 25 and running them all at once (WORKER_MAX_TASKS=25,
 * WORKER_CONCURRENCY=25): with 100 ms per request and the rest of an action's work, that many in
 * flight is what keeps 100 requests/s going. REPLICATE_REQUESTS_PER_SECOND=100 paces the API calls
 * at the provider's documented limit.
 */
const CONFIG: DrainConfig = { loops: 4, maxTasks: 25, concurrency: 25, idleMs: 250, pacedAt: REQUESTS_PER_SECOND };

export default {
  name: PART,
  async run(ctx: BenchContext) {
    const url = await ctx.createDatabase("drain");
    const sim = await startDrainSimulator({ requestsPerSecond: REQUESTS_PER_SECOND, latencyMs: LATENCY_MS });
    try {
      const jobs = await seedDrain(url, { count: ACTIONS, tag: "drain" });
      await sim.seed(jobs, 1024);
      const run = await measured(
        await postmasterOf(url),
        () => runDrain(url, sim.url, { config: CONFIG }),
        sim.pid ? [sim.pid] : [],
      );
      const drained = run.value;
      const provider = await sim.report();
      const { seen } = provider;
      const statusRequests = seen.filter((request) => request.path.startsWith("/replicate/v1/predictions/"));
      const throttled = statusRequests.filter((request) => request.throttled).length;
      const bound = ACTIONS / REQUESTS_PER_SECOND;
      ctx.log(
        `drain: ${drained.seconds.toFixed(1)} s for ${ACTIONS} actions (bound ${bound} s), ${drained.ticks} ticks, ` +
          `${statusRequests.length} status requests (${throttled} throttled), outcomes ${JSON.stringify(drained.outcomes)}` +
          (run.foreignShare === undefined ? "" : `; others used ${(run.foreignShare * 100).toFixed(0)}% of the CPUs`),
      );
      const rows: BenchRow[] = [
        {
          part: PART,
          metric: `${ACTIONS.toLocaleString("en-US")} resume_poll actions, 4 loops, ${LATENCY_MS} ms latency, ${REQUESTS_PER_SECOND} req/s: time to resolve all`,
          value: drained.seconds,
          unit: "s",
          better: "lower",
          baseline: { label: `rate-limit bound, ${ACTIONS} requests / ${REQUESTS_PER_SECOND} per s`, value: bound },
          target: "<= 1.15x the bound (ratio >= 0.87)",
        },
        {
          part: PART,
          metric: "status requests refused with 429",
          value: throttled,
          unit: "requests",
          better: "lower",
        },
      ];
      const checks: BenchCheck[] = (await drainChecks(url, provider, jobs)).map((finding) => ({
        part: PART,
        ...finding,
      }));
      return { rows, checks };
    } finally {
      await sim.stop();
    }
  },
} satisfies BenchPart;
