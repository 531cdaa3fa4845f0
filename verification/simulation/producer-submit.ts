import { CreateAlreadySent, type GuardContext } from "@/sdk/src";
import type { SimJob } from "@/verification/simulator";
import { sendWithOfficialClient } from "./official-client-creates";
import { type CreateFault, type ModelChoice, type OpPlan, requestSent, type Trouble } from "./op-plan";
import { chargeJob, shareOutputs } from "./provider-charges";
import { type AttemptRecord, count, type OpRecord, recordJob, resetFaultRules, type World } from "./world";

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
    const attempt = this.begin(op, attemptId, trouble, extra);
    if (fault !== "before_send") attempt.producerKnowsJob = (await this.send(index, op, attempt, fault)).keptJob;
    count(this.world, `producer create: ${fault.replaceAll("_", " ")}`);
    const what = attempt.jobId ? "the provider has a job" : "no job at the provider";
    this.world.trace.record(
      index,
      `producer submits ${attempt.replacement ? "a replacement" : "the original"} [${fault}] -> ${what}`,
    );
    return attempt;
  }

  /** The attempt the shop is about to send, recorded before anything leaves. */
  begin(
    op: OpRecord,
    attemptId: string,
    trouble: Trouble,
    extra: { holdId: string; job: AttemptRecord["job"] },
  ): AttemptRecord {
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
      permitToken: null,
    };
    op.attempts.push(attempt);
    return attempt;
  }

  /**
   * The create call, broken as `fault` says (`refused`: the provider's definite 422 instead), with
   * the provider webhook URL when the shop has one. `keptJob`: the shop has the job's ID in hand.
   */
  async send(
    index: number,
    op: OpRecord,
    attempt: AttemptRecord,
    fault: Exclude<CreateFault, "before_send">,
    options: { webhookUrl?: string; refused?: boolean; officialClient?: GuardContext } = {},
  ): Promise<{ keptJob: boolean; status: number | null; wireCreates: number }> {
    const { model } = op.plan;
    const simulator = this.world.simulator;
    if (options.refused) {
      simulator.state.faults.add({ match: { route: "create" }, fault: { type: "http_error", status: 422 }, times: 1 });
    } else if (fault === "not_accepted") {
      simulator.state.faults.add({ match: { route: "create" }, fault: { type: "http_error", status: 502 }, times: 1 });
    } else if (fault === "accepted_lost") {
      simulator.state.faults.add({ match: { route: "create" }, fault: { type: "reset" }, times: 1 });
    }
    this.world.producerCreates += 1;
    count(this.world, `producer creates at ${model.provider}`);
    const { path, body } = createRequest(model, op.plan.input, options.webhookUrl);
    let status: number | null = null;
    const createsBefore = simulator.state.createCount();
    try {
      if (options.officialClient) {
        const guard = options.officialClient;
        // What the wire answered the one create, whatever the client makes of it.
        const observed: typeof fetch = async (input, init) => {
          const response = await guard.fetch(input, init).catch((error: unknown) => {
            if (error instanceof CreateAlreadySent)
              count(this.world, "official clients' own resends refused by the guard");
            throw error;
          });
          if (init?.method && init.method.toUpperCase() !== "GET") status = response.status;
          return response;
        };
        const request = { path, body, webhookUrl: options.webhookUrl };
        await sendWithOfficialClient(simulator.url, model, request, { ...guard, fetch: observed });
      } else {
        const response = await fetch(`${simulator.url}${path}`, {
          method: "POST",
          headers: { "content-type": "application/json", ...model.headers },
          body: JSON.stringify(body),
        });
        status = response.status;
        await response.body?.cancel();
      }
    } catch {
      status = null;
    } finally {
      resetFaultRules(this.world);
    }
    // Creates that reached the provider in this send: one, unless a client resent on its own.
    const wireCreates = simulator.state.createCount() - createsBefore;
    if (wireCreates > 1) this.world.producerCreates += wireCreates - 1;
    const job = this.newJobs()[0];
    if (job && attempt.job) {
      Object.assign(job, attempt.job);
      attempt.jobId = job.id;
      recordJob(this.world, index, job);
      chargeJob(this.world, index, op, job);
      shareOutputs(this.world, index, job);
    }
    const answered = status !== null && status >= 200 && status < 300;
    return { keptJob: answered && fault === "none" && job !== undefined, status, wireCreates };
  }

  /**
   * The shop's official client, built without the SDK's guard, sends the create once more on its
   * own, on purpose for the run: a second paid job for the operation, with no permit and no webhook,
   * that the shop never reports (decision 076). It reaches the provider like any create.
   */
  async sendOutsidePermit(index: number, op: OpRecord): Promise<void> {
    const { path, body } = createRequest(op.plan.model, op.plan.input, undefined);
    this.world.producerCreates += 1;
    const createsBefore = this.world.simulator.state.createCount();
    const status = await fetch(`${this.world.simulator.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...op.plan.model.headers },
      body: JSON.stringify(body),
    })
      .then(async (response) => {
        await response.body?.cancel();
        return response.status;
      })
      .catch(() => null);
    // A storm may refuse it before the provider counts it: then nothing was created or paid.
    if (this.world.simulator.state.createCount() === createsBefore) this.world.producerCreates -= 1;
    const job = this.newJobs()[0];
    count(
      this.world,
      `creates sent again outside the permits: ${job ? "a second job" : `no job (${status ?? "reset"})`}`,
    );
    if (!job) return;
    recordJob(this.world, index, job);
    chargeJob(this.world, index, op, job);
    this.world.invoices.outsidePermits.set(job.id, index);
    this.world.trace.record(index, "the shop's unguarded client sent the create again: a second paid job");
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

/**
 * The create request each provider's API takes. Runway, Luma and Veo get no webhook URL (the SDK
 * gives their creates none) and take the body `requestSent` fingerprints; the request's fields stay
 * as they are, so that the job keeps the operation and shop the auditor counts paid generations by.
 */
function createRequest(model: ModelChoice, input: OpPlan["input"], webhookUrl: string | undefined) {
  if (model.provider === "fal") {
    const path = webhookUrl ? `${model.createPath}?fal_webhook=${encodeURIComponent(webhookUrl)}` : model.createPath;
    return { path, body: input };
  }
  if (model.provider === "runway" || model.provider === "luma" || model.provider === "veo")
    return { path: model.createPath, body: requestSent(model, input) };
  const webhook = webhookUrl ? { webhook: webhookUrl, webhook_events_filter: ["completed"] } : {};
  return { path: model.createPath, body: { input, ...webhook } };
}
