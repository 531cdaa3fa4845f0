import type { SimJob } from "@/verification/simulator";
import type { CreateFault, Trouble } from "./op-plan";
import { type AttemptRecord, count, type OpRecord, resetFaultRules, type World } from "./world";

/**
 * The producer's own create call, over real HTTP to the simulator's create route, broken where the
 * plan says: not sent at all, a 502 (never accepted), a reset after the job was created, or an
 * answer the producer loses before saving it. Records the attempt with the job it really created.
 */
export class ProviderCreates {
  /** A live iterator over the simulator's jobs: each create adds at most one, at the end. */
  private readonly jobs: IterableIterator<SimJob>;
  private jobsSeen = 0;

  constructor(private readonly world: World) {
    this.jobs = world.simulator.state.jobs.values();
  }

  async submit(
    index: number,
    op: OpRecord,
    attemptId: string,
    fault: CreateFault,
    trouble: Trouble,
    extra: { holdId: string; job: AttemptRecord["job"] },
  ): Promise<AttemptRecord> {
    const { model } = op.plan;
    const attempt: AttemptRecord = {
      attemptId,
      jobId: null,
      replacement: op.attempts.length > 0,
      trouble,
      job: extra.job,
      submittedAt: this.world.clock.now(),
      holdId: extra.holdId,
      producerKnowsJob: false,
      parkPending: true,
    };
    op.attempts.push(attempt);
    if (fault !== "before_send") {
      const simulator = this.world.simulator;
      if (fault === "not_accepted") {
        simulator.state.faults.add({
          match: { route: "create" },
          fault: { type: "http_error", status: 502 },
          times: 1,
        });
      }
      if (fault === "accepted_lost")
        simulator.state.faults.add({ match: { route: "create" }, fault: { type: "reset" }, times: 1 });
      this.world.producerCreates += 1;
      const body = model.provider === "fal" ? op.plan.input : { input: op.plan.input };
      let answered = false;
      try {
        const response = await fetch(`${simulator.url}${model.createPath}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        });
        answered = response.ok;
        await response.body?.cancel();
      } catch {
        answered = false;
      } finally {
        resetFaultRules(this.world);
      }
      const job = this.newJobs()[0];
      if (job && extra.job) {
        Object.assign(job, extra.job);
        attempt.jobId = job.id;
        this.world.byJob.set(job.id, index);
      }
      attempt.producerKnowsJob = answered && fault === "none" && job !== undefined;
    }
    count(this.world, `producer create: ${fault.replaceAll("_", " ")}`);
    const what = attempt.jobId ? "the provider has a job" : "no job at the provider";
    this.world.trace.record(
      index,
      `producer submits ${attempt.replacement ? "a replacement" : "the original"} [${fault}] -> ${what}`,
    );
    return attempt;
  }

  private newJobs(): SimJob[] {
    const fresh: SimJob[] = [];
    while (this.jobsSeen < this.world.simulator.state.jobs.size) {
      const next = this.jobs.next();
      if (next.done) break;
      this.jobsSeen += 1;
      fresh.push(next.value);
    }
    return fresh;
  }
}
