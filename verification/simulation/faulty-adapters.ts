import type { JobStatus, OutputRef, ProviderAdapter, ProviderAdapters } from "@/lib/providers";
import { byProvider } from "@/lib/providers/registry";
import { classifyRequest } from "@/verification/shared/simulator-requests";
import type { SimJob } from "@/verification/simulator";
import type { SimWorker } from "./sim-worker";
import { type CallPlan, planDownload, planStatusCall } from "./worker-faults";
import { reportedJobId, resetFaultRules, type World } from "./world";

/** Lets another worker run while `stalled` is stuck in a call for operation `op`. */
export type Interleave = (stalled: SimWorker, op: number) => Promise<void>;

const summary = (status: JobStatus) =>
  status.kind === "unknown" ? `unknown${status.retryAfterMs ? " (throttled)" : ""}` : status.kind;

/** The simulator's job an output URL serves (a CDN path, or Veo's files route), as its request log reads it. */
function jobIdOfOutput(output: OutputRef | string): string {
  const url = new URL(typeof output === "string" ? output : output.url);
  return classifyRequest("GET", url.pathname).jobId ?? "";
}

/** A read from a lagging replica: the job briefly looks queued again, or unknown. Undone after the call. */
function staleRead(world: World, job: SimJob | undefined, stale: CallPlan["stale"]): () => void {
  if (!job || !stale) return () => {};
  const saved = { createdAt: job.createdAt, notFoundForMs: job.notFoundForMs };
  if (stale === "running") job.createdAt = world.clock.now();
  else job.notFoundForMs = world.clock.now() - job.createdAt + 3_600_000;
  return () => Object.assign(job, saved);
}

/** The job finishes while the stalled worker's answer ("still running", say) is on its way. */
function finishNow(world: World, job: SimJob | undefined): void {
  if (!job) return;
  const elapsed = world.clock.now() - job.createdAt;
  if (job.queuedMs + job.runningMs <= elapsed) return;
  job.queuedMs = Math.min(job.queuedMs, elapsed);
  job.runningMs = elapsed - job.queuedMs;
}

/**
 * The real adapters, with the simulation's faults around each call: crashes before or after,
 * stalls past the lease, and simulator fault rules installed for exactly this call.
 */
export function faultyAdapters(
  world: World,
  worker: SimWorker,
  inner: ProviderAdapters,
  interleave: Interleave,
): ProviderAdapters {
  const wrap = (adapter: ProviderAdapter): ProviderAdapter => ({
    provider: adapter.provider,
    capabilities: adapter.capabilities,
    async getJob(ref, options) {
      const known = world.byJob.get(ref.providerJobId);
      const op = known === undefined ? undefined : world.ops[known.index];
      if (known === undefined || !op) return adapter.getJob(ref, options);
      const { index, jobId } = known;
      worker.lastOperation = index;
      // Fault rules match the simulator's own key, which is not always the ID the product holds.
      const plan = planStatusCall(world, op, jobId, worker.nested);
      if (plan.crash === "before") return worker.crash(index, "before the status check");
      if (plan.interleave === "before") await interleave(worker, index);
      const job = world.simulator.state.jobs.get(jobId);
      for (const rule of plan.rules) world.simulator.state.faults.add(rule);
      const undo = staleRead(world, job, plan.stale);
      let status: JobStatus;
      try {
        status = await adapter.getJob(ref, options);
      } finally {
        undo();
        resetFaultRules(world);
      }
      world.trace.record(index, `${worker.label} status check [${plan.label}] -> ${summary(status)}`);
      const lossShown =
        (status.kind === "completed" && status.outputsRemoved) ||
        (status.kind === "unknown" && status.reason === "result_unavailable");
      if (lossShown) world.lossShownAt.set(ref.providerJobId, world.clock.now());
      if (plan.interleave === "after") {
        finishNow(world, job);
        await interleave(worker, index);
      }
      if (plan.crash === "after") return worker.crash(index, "after the status answer arrived, before recording it");
      return status;
    },
    async downloadOutput(output, sink, options) {
      const known = world.byJob.get(jobIdOfOutput(output));
      const op = known === undefined ? undefined : world.ops[known.index];
      if (known === undefined || !op) return adapter.downloadOutput(output, sink, options);
      const { index, jobId } = known;
      const plan = planDownload(world, op, jobId, worker.nested);
      if (plan.crash === "before") return worker.crash(index, "before downloading");
      if (plan.interleave === "before") await interleave(worker, index);
      for (const rule of plan.rules) world.simulator.state.faults.add(rule);
      let result: Awaited<ReturnType<ProviderAdapter["downloadOutput"]>>;
      try {
        result = await adapter.downloadOutput(output, sink, options);
      } finally {
        resetFaultRules(world);
      }
      world.trace.record(index, `${worker.label} download [${plan.label}] -> ${result.ok ? "ok" : result.reason}`);
      if (!result.ok && result.reason === "not_available")
        world.lossShownAt.set(reportedJobId(world, jobId), world.clock.now());
      if (plan.interleave === "after") await interleave(worker, index);
      if (plan.crash === "after") return worker.crash(index, "after downloading, before storing");
      return result;
    },
    async listJobs(window, options) {
      worker.listCalls += 1;
      if (!adapter.listJobs) return { kind: "unknown", reason: "not supported", jobs: [], pages: 0 };
      return adapter.listJobs(window, options);
    },
  });
  return { ...byProvider((provider) => wrap(inner[provider.name])) };
}
