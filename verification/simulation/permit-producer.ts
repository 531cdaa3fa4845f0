import { createRecoveryClient, ProviderRejected, type RecoveryClient, type Send } from "@/sdk/src";
import { completedAt, phaseOf } from "@/verification/simulator/jobs";
import { ShopProcess } from "./in-process-fetch";
import type { CreateFault } from "./op-plan";
import type { ProviderCreates } from "./producer-submit";
import type { ProviderWebhookDesk } from "./provider-webhooks";
import { Rng, seedOf } from "./random";
import type { Steps } from "./steps";
import { type AttemptRecord, count, type OpRecord, producerOf, reportedJobId, type World, wrongAnswer } from "./world";

const MINUTE = 60_000;

/** How one send goes: where the create breaks, a definite refusal, and whether the shop dies before reporting. */
type SendPlan = { fault: CreateFault; refused: boolean; crashes: boolean };

/**
 * A shop whose official client is also built somewhere without the guard, and sends a clean,
 * accepted create again through it (decision 076). Only a generation that will succeed and that
 * the shop reported as accepted, so the second job stays the one outside the permits: the first
 * is the operation's, and nothing about it is left uncertain. Drawn from a stream of its own.
 */
function resendsOutsidePermit(world: World, op: OpRecord, how: SendPlan): boolean {
  const clean = how.fault === "none" && !how.crashes && !how.refused;
  const succeeds = op.plan.job.outcome === "succeeded" && op.plan.trouble !== "generation_failed";
  if (!op.plan.permit?.officialClient || !clean || !succeeds) return false;
  return new Rng(seedOf("outside-permit", world.seed, op.plan.index)).chance(0.6);
}

/** Thrown by the create callback where the shop's process dies: nothing after it runs in that process. */
class ShopCrashed extends Error {}

/**
 * A shop that sends through the producer SDK: `submit` asks for a send permit, calls the
 * provider's create once (over real HTTP, with the permit's webhook URL), and reports the outcome,
 * unless the shop's process dies between the send and the report. A restarted shop asks again for
 * the same send and must be told where it stands, never handed a second permit; a refused send is
 * sent again as a new attempt under a new permit; a shop that polls its own job reports how it
 * ended. Everything after a crash is left to the product: the permit's deadline, the provider's
 * webhook, and the silence rule.
 */
export class PermitProducer {
  constructor(
    private readonly world: World,
    private readonly steps: Steps,
    private readonly creates: ProviderCreates,
    private readonly webhooks: ProviderWebhookDesk,
  ) {}

  async arrive(index: number): Promise<void> {
    const op = this.op(index);
    const plan = this.plan(op);
    const fault = op.plan.createFault;
    // The shop dies before the create left, after its answer arrived (both by the fault's
    // definition), or wherever the plan says between send and report.
    const crashes = fault === "before_send" || fault === "response_lost" || plan.crashesAfterSend;
    await this.send(index, op, 1, { fault, refused: plan.refused && !crashes, crashes });
  }

  /** After a refusal: the same operation as a new attempt, under the next permit. */
  async resend(index: number): Promise<void> {
    const op = this.op(index);
    await this.send(index, op, op.attempts.length + 1, { fault: "none", refused: false, crashes: false });
  }

  /** The crashed shop starts again and asks to send the same attempt: the product says where it stands. */
  async restart(index: number): Promise<void> {
    const op = this.op(index);
    const attempt = this.lastPermitted(op);
    if (!attempt) return;
    const process = new ShopProcess();
    const answer = await this.steps.call(index, "shop", "restarts and asks to send the same attempt", () =>
      this.client(op, process).submit(this.sendOf(op, attempt), async ({ webhookUrl }) => {
        // Never reached while the product keeps its promise; if it is, the create really goes out.
        const sent = await this.creates.send(index, op, attempt, "none", { webhookUrl });
        op.permitSends += sent.wireCreates;
        this.webhooks.collect(index, op, this.plan(op));
        return { providerJobId: attempt.jobId ? reportedJobId(this.world, attempt.jobId) : `lost-${sent.status}` };
      }),
    );
    if (!answer.ok) return;
    const result = answer.value;
    if (result.sent) {
      wrongAnswer(this.world, index, "a restarted shop was handed a second permit for the same send");
      return;
    }
    count(this.world, `restarted shops told the send is ${result.answer.status}`);
    this.world.trace.record(index, `the shop is told the send is ${result.answer.status}`);
  }

  /** The shop looks at its own job and reports how it ended (or, losing track while downloading, that it does not know). */
  async poll(index: number): Promise<void> {
    const op = this.op(index);
    const attempt = this.lastPermitted(op);
    const job = attempt?.jobId ? this.world.simulator.state.jobs.get(attempt.jobId) : undefined;
    if (!attempt?.permitToken || !attempt.jobId || !job) return;
    const providerJobId = reportedJobId(this.world, attempt.jobId);
    if (phaseOf(job, this.world.clock.now()) !== "done") {
      this.world.schedule.add(this.steps.later(5 * MINUTE), index, "permit_poll");
      return;
    }
    const outcome = job.outcome !== "succeeded" ? "failed" : attempt.trouble === "download" ? "unknown" : "completed";
    const summary = {
      failed: "the provider reports the generation failed",
      unknown: "the job completed, and the shop lost track of it while downloading",
      completed: "the shop downloaded the video",
    }[outcome];
    const report = await this.steps.call(index, "shop", `polled its job and reports ${outcome}`, () =>
      this.client(op, new ShopProcess()).report(attempt.attemptId, {
        operationId: op.plan.operationId,
        token: attempt.permitToken ?? 0,
        outcome,
        ...(outcome === "unknown" ? {} : { providerJobId }),
        evidence: { summary, observedAt: this.world.clock.iso() },
      }),
    );
    if (report.ok)
      count(this.world, `shop reports after polling: ${outcome}${report.value.changed ? "" : " (known already)"}`);
  }

  private async send(index: number, op: OpRecord, number: number, how: SendPlan): Promise<void> {
    const plan = this.plan(op);
    const attemptId = `${op.plan.operationId}-a${number}`;
    const job = number === 1 ? op.plan.job : { ...op.plan.job };
    const attempt = this.creates.begin(op, attemptId, op.plan.trouble, { holdId: `${attemptId}-hold`, job });
    // The permit parks this attempt if it must; the shop never parks it itself.
    attempt.parkPending = false;
    const process = new ShopProcess();
    const label = how.refused ? "refused" : how.crashes ? `${how.fault}, then the shop dies` : how.fault;
    const submitted = await this.steps.call(index, "shop", `sends attempt ${number} through the SDK [${label}]`, () =>
      this.client(op, process).submit(this.sendOf(op, attempt), async ({ webhookUrl, signal, fetch }) => {
        if (how.fault === "before_send") {
          process.crash();
          throw new ShopCrashed("the shop died before the create left");
        }
        const officialClient = plan.officialClient ? { fetch, signal } : undefined;
        const sent = await this.creates.send(index, op, attempt, how.fault, {
          webhookUrl,
          refused: how.refused,
          officialClient,
        });
        // Counted at the provider: a client's own resend would show here and in "creates beyond permits".
        op.permitSends += sent.wireCreates;
        if (officialClient) count(this.world, `permit sends through ${op.plan.model.provider}'s official client`);
        attempt.producerKnowsJob = sent.keptJob;
        this.webhooks.collect(index, op, plan);
        if (how.crashes) {
          process.crash();
          throw new ShopCrashed("the shop died before reporting");
        }
        if (sent.status === 422) throw new ProviderRejected("the provider refused the request (422)");
        if (!sent.keptJob || !attempt.jobId)
          throw new Error(`no answer the shop could keep (${sent.status ?? "reset"})`);
        return { providerJobId: reportedJobId(this.world, attempt.jobId) };
      }),
    );
    count(this.world, `permit sends: ${label}`);
    if (!submitted.ok) return;
    const result = submitted.value;
    if (!result.sent) {
      wrongAnswer(this.world, index, `a new attempt was not permitted (${result.answer.status})`);
      return;
    }
    attempt.permitToken = result.permit.token;
    if (how.crashes) {
      op.crashedAfterSend = true;
      if (result.reported) wrongAnswer(this.world, index, "a report arrived from a shop that had died");
      if (plan.restartAfterMs !== null) {
        this.world.schedule.add(this.steps.later(plan.restartAfterMs), index, "permit_restart");
      }
      return;
    }
    if (!result.reported) wrongAnswer(this.world, index, `the shop's ${result.outcome} report was refused`);
    if (result.outcome === "accepted" && number === 1 && resendsOutsidePermit(this.world, op, how))
      await this.creates.sendOutsidePermit(index, op);
    if (result.outcome === "rejected") {
      // Finance decides the refused send's hold; the shop sends the operation again.
      this.world.schedule.add(this.steps.later(op.plan.rng.int(5, 60) * MINUTE), index, "finance");
      this.world.schedule.add(this.steps.later(op.plan.rng.int(1, 5) * MINUTE), index, "permit_resend");
    }
    const created = attempt.jobId ? this.world.simulator.state.jobs.get(attempt.jobId) : undefined;
    if (result.outcome === "accepted" && plan.pollsItself && attempt.trouble !== "status_checks" && created) {
      const finished = completedAt(created) + MINUTE;
      this.world.schedule.add(this.steps.later(finished - this.world.clock.now()), index, "permit_poll");
    }
  }

  private sendOf(op: OpRecord, attempt: AttemptRecord): Send {
    const { model } = op.plan;
    return {
      operationId: op.plan.operationId,
      attemptId: attempt.attemptId,
      requestFingerprint: op.plan.fingerprint,
      provider: model.provider,
      model: model.model,
      hold: { holdId: attempt.holdId, amountMicros: op.plan.amountMicros, currency: "USD" },
      request: { model: model.model, seconds: op.plan.input.seconds },
      sendWithinSeconds: this.plan(op).sendWindowMs / 1000,
    };
  }

  private client(op: OpRecord, process: ShopProcess): RecoveryClient {
    const shop = producerOf(this.world, op);
    return createRecoveryClient({ baseUrl: "http://recovery.sim.local", apiKey: shop.apiKey, fetch: process.fetch });
  }

  private lastPermitted(op: OpRecord): AttemptRecord | undefined {
    return op.attempts.findLast((attempt) => attempt.permitToken !== null);
  }

  private plan(op: OpRecord) {
    if (!op.plan.permit) throw new Error(`operation ${op.plan.index} does not send under permits`);
    return op.plan.permit;
  }

  private op(index: number): OpRecord {
    const op = this.world.ops[index];
    if (!op) throw new Error(`no operation ${index}`);
    return op;
  }
}
