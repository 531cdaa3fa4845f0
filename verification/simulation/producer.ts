import { env } from "@/lib/env";
import { parkCase } from "@/lib/services/case/park-case";
import { reportOutcome } from "@/lib/services/permit/report-outcome";
import { acknowledgeReplacement, listReplacements } from "@/lib/services/replacement/producer-replacements";
import type { ParkCaseInput } from "@/lib/validation/park-case";
import { phaseOf } from "@/verification/simulator/jobs";
import { type CreateFault, jobBehaviour, type Trouble } from "./op-plan";
import type { ProviderCreates } from "./producer-submit";
import type { Steps } from "./steps";
import {
  type AttemptRecord,
  count,
  type OpRecord,
  opOfOperationId,
  producerOf,
  reportedJobId,
  type ShopProducer,
  violate,
  type World,
  wrongAnswer,
} from "./world";

const MINUTE = 60_000;
const RETRY_DEADLINE_MS = 5 * MINUTE;

/**
 * The producing shop app: it submits each generation itself (the provider's create route over
 * real HTTP, with the fault points of an ambiguous submission), and parks what it cannot finish
 * through the real park-case service. It submits a replacement only after finance authorised it.
 */
export class Producer {
  constructor(
    private readonly world: World,
    private readonly steps: Steps,
    private readonly creates: ProviderCreates,
  ) {}

  async arrive(index: number): Promise<void> {
    const op = this.op(index);
    const attempt = await this.creates.submit(
      index,
      op,
      `${op.plan.operationId}-a1`,
      op.plan.createFault,
      op.plan.trouble,
      {
        holdId: `${op.plan.operationId}-a1-hold`,
        job: op.plan.job,
      },
    );
    this.world.schedule.add(this.parkTime(op, attempt), index, "park");
  }

  /** Parks every attempt of the operation that is waiting to be parked. */
  async park(index: number): Promise<void> {
    const op = this.op(index);
    const shop = producerOf(this.world, op).principal;
    for (const attempt of op.attempts as AttemptRecord[]) {
      if (!attempt.parkPending) continue;
      attempt.parkPending = false;
      let input = this.registration(op, attempt);
      if (op.episodes === 0 && op.plan.misnamesJob && (await this.misnameJob(index, op, input))) continue;
      const taken = await this.jobTakenByAnother(op, input);
      let parked = await this.steps.call(
        index,
        "producer",
        `parks ${input.stage}`,
        () => parkCase(this.world.db, shop, input),
        taken ? ["provider_job_in_use"] : [],
      );
      if (!parked.ok && parked.code === "provider_job_in_use") {
        // Another shop registered this job first by mistake: which job is ours is uncertain again, so
        // the shop parks it as such and a reviewer sorts it out with the provider's evidence.
        count(this.world, "own job taken by another shop's mistaken registration: parked as uncertain");
        const uncertain: ParkCaseInput = { ...input, stage: "submission_uncertain", providerJobId: undefined };
        input = uncertain;
        parked = await this.steps.call(index, "producer", "parks submission_uncertain (job taken)", () =>
          parkCase(this.world.db, shop, uncertain),
        );
      }
      if (!parked.ok) continue;
      op.caseId = parked.value.caseId;
      op.episodes += 1;
      this.world.byCase.set(parked.value.caseId, index);
      const rng = op.plan.rng;
      if (op.plan.seams.chance(0.04)) {
        const other = { ...input, hold: { ...input.hold, amountMicros: input.hold.amountMicros + 100_000 } };
        const replay = await this.steps.call(
          index,
          "producer",
          "parks the operation again with another hold amount",
          () => parkCase(this.world.db, shop, other),
          ["conflicting_registration"],
        );
        if (replay.ok) wrongAnswer(this.world, index, "a replay with another hold amount was accepted");
      }
      if (rng.chance(0.05)) {
        const again = await this.steps.call(index, "producer", "parks the same facts again", () =>
          parkCase(this.world.db, shop, input),
        );
        if (again.ok && (again.value.created || again.value.caseId !== parked.value.caseId)) {
          violate(this.world, "unexpectedRefusals", index, "an identical registration created something new");
        }
      } else if (rng.chance(0.03)) {
        const other = { ...input, requestFingerprint: `sha256:${"0".repeat(64)}` };
        await this.steps.call(
          index,
          "producer",
          "parks the operation with other facts",
          () => parkCase(this.world.db, shop, other),
          ["conflicting_registration"],
        );
      }
    }
  }

  /**
   * The shop copies the wrong job ID into its registration: one that another shop's operation on
   * the same provider account owns. The product must refuse it (409 provider_job_in_use), after
   * which the shop parks with its own job. True when the wrong registration was accepted.
   */
  private async misnameJob(index: number, op: OpRecord, input: ParkCaseInput): Promise<boolean> {
    if (!input.providerJobId) return false;
    const victim = this.recentJobOfAnotherShop(index, op);
    if (!victim) return false;
    const wrong = { ...input, providerJobId: victim };
    const shop = producerOf(this.world, op).principal;
    // Only a job already recorded for its owner can be recognised at the door: a job whose owner
    // never learned its ID (an uncertain submission) is the mistaken shop's as far as anyone can tell.
    const recorded = await this.world.sql.query("SELECT 1 FROM attempts WHERE provider = $1 AND provider_job_id = $2", [
      input.provider,
      victim,
    ]);
    const parked = await this.steps.call(
      index,
      "producer",
      `parks ${input.stage} naming another shop's job`,
      () => parkCase(this.world.db, shop, wrong),
      ["provider_job_in_use"],
    );
    if (!parked.ok) return false;
    if (recorded.rowCount === 0) {
      count(
        this.world,
        "registrations naming another shop's job before its owner recorded it (accepted: nothing tells)",
      );
    } else wrongAnswer(this.world, index, "a registration naming another operation's job was accepted");
    op.caseId = parked.value.caseId;
    op.episodes += 1;
    this.world.byCase.set(parked.value.caseId, index);
    return true;
  }

  /** Whether the product records this job for another operation (the only refusal a shop can expect). */
  private async jobTakenByAnother(op: OpRecord, input: ParkCaseInput): Promise<boolean> {
    if (!input.providerJobId) return false;
    const { rowCount } = await this.world.sql.query(
      `SELECT 1 FROM attempts a JOIN operations o ON o.id = a.operation_ref
       WHERE a.provider = $1 AND a.provider_job_id = $2 AND NOT (o.producer = $3 AND o.operation_id = $4)`,
      [input.provider, input.providerJobId, producerOf(this.world, op).principal.name, input.operationId],
    );
    return (rowCount ?? 0) > 0;
  }

  private recentJobOfAnotherShop(index: number, op: OpRecord): string | null {
    for (let other = index - 1; other >= Math.max(0, index - 30); other--) {
      const candidate = this.world.ops[other];
      // Another shop on the same provider account: a job of another provider is no job of this one.
      if (!candidate || candidate.plan.producer === op.plan.producer) continue;
      if (candidate.plan.model.provider !== op.plan.model.provider) continue;
      const job = candidate.attempts.find((a) => a.jobId !== null)?.jobId;
      if (job) return reportedJobId(this.world, job);
    }
    return null;
  }

  /**
   * A resolved operation comes back: the shop generates it again on purpose (say the customer
   * asked for it anew) and parks the new attempt as a new episode of the same case.
   */
  async comeBack(index: number): Promise<void> {
    const op = this.op(index);
    const view = op.caseId ? this.steps.view(op.caseId) : undefined;
    if (view?.state !== "resolved" || op.attempts.some((a) => a.parkPending)) {
      // Still busy with the last episode (a replacement, say): the customer asks again later, a few times at most.
      op.comebackTries += 1;
      if (op.comebackTries < 5) this.world.schedule.add(this.steps.later(60 * MINUTE), index, "comeback");
      return;
    }
    const episode = op.episodes + 1;
    op.ownResubmissions += 1;
    op.gaveUp = false;
    op.reviews = 0;
    const job = jobBehaviour(op.plan.seams, false);
    job.outcome = "succeeded";
    const attempt = await this.creates.submit(index, op, `${op.plan.operationId}-e${episode}`, "none", "download", {
      holdId: `${op.plan.operationId}-e${episode}-hold`,
      job,
    });
    this.world.trace.record(index, `producer generates the operation again for episode ${episode}`);
    this.world.schedule.add(this.parkTime(op, attempt), index, "park");
  }

  /** Authorised replacements: acknowledge, then submit each (a new paid generation the producer makes). */
  async submitReplacements(): Promise<void> {
    for (const shop of this.world.producers) await this.submitReplacementsOf(shop.principal);
  }

  private async submitReplacementsOf(shop: ShopProducer["principal"]): Promise<void> {
    const listed = await this.steps.call(null, "producer", "lists authorised replacements", () =>
      listReplacements(this.world.db, shop, "authorized", env()),
    );
    if (!listed.ok) return;
    const items = [...listed.value.items].sort((a, b) => a.operationId.localeCompare(b.operationId));
    for (const item of items) {
      const index = opOfOperationId(this.world, shop.name, item.operationId);
      const op = index === null ? undefined : this.world.ops[index];
      if (index === null || !op || !item.attemptId || !item.hold) continue;
      const acknowledged = await this.steps.call(index, "producer", "acknowledges an authorised replacement", () =>
        acknowledgeReplacement(this.world.db, shop, item.id),
      );
      if (!acknowledged.ok) continue;
      const rng = op.plan.rng;
      const fault = rng.weighted<CreateFault>([
        ["none", 80],
        ["accepted_lost", 10],
        ["response_lost", 10],
      ]);
      const trouble = rng.weighted<Trouble | "none">([
        ["none", 50],
        ["status_checks", 20],
        ["download", 20],
        ["generation_failed", 10],
      ]);
      const job = jobBehaviour(rng, trouble === "generation_failed");
      if (trouble === "none") job.outcome = "succeeded";
      const attempt = await this.creates.submit(
        index,
        op,
        item.attemptId,
        fault,
        trouble === "none" ? "status_checks" : trouble,
        {
          holdId: item.hold.holdId,
          job,
        },
      );
      if (fault === "none" && trouble === "none") {
        attempt.parkPending = false;
        this.world.trace.record(index, "producer got its replacement video without trouble");
        await this.reportUnderPermit(index, shop, item, attempt);
        continue;
      }
      this.world.schedule.add(this.parkTime(op, attempt), index, "park");
    }
  }

  /**
   * The replacement went out under the permit the product issued with it (decision 036), so the shop
   * reports its end there; anything it could not finish it parks as before, which parks the permit too.
   */
  private async reportUnderPermit(
    index: number,
    shop: ShopProducer["principal"],
    item: Awaited<ReturnType<typeof listReplacements>>["items"][number],
    attempt: AttemptRecord,
  ): Promise<void> {
    if (!item.permit || !item.attemptId || !attempt.jobId) return;
    const { token } = item.permit;
    const providerJobId = reportedJobId(this.world, attempt.jobId);
    await this.steps.call(index, "producer", "reports its replacement completed under its permit", () =>
      reportOutcome(this.world.db, shop, item.attemptId ?? "", {
        operationId: item.operationId,
        token,
        outcome: "completed",
        providerJobId,
        evidence: { summary: "the shop downloaded the replacement video", observedAt: this.world.clock.iso() },
      }),
    );
  }

  /** When the producer gives up on the attempt and parks it. */
  private parkTime(op: OpRecord, attempt: AttemptRecord): number {
    const giveUp = attempt.submittedAt + op.plan.patienceMs;
    const job = attempt.job;
    if (!attempt.producerKnowsJob || !job || attempt.trouble === "status_checks")
      return this.steps.later(giveUp - this.world.clock.now());
    const finished = attempt.submittedAt + job.queuedMs + job.runningMs;
    const after = attempt.trouble === "download" ? 2 * MINUTE : MINUTE;
    return this.steps.later(Math.max(giveUp, finished + after) - this.world.clock.now());
  }

  private registration(op: OpRecord, attempt: AttemptRecord): ParkCaseInput {
    const stage = this.stageOf(attempt);
    const knows = attempt.producerKnowsJob && attempt.jobId !== null;
    const reason = {
      submission_uncertain: "the create call ended without an answer we could keep",
      polling: "status checks kept failing",
      delivery: "the job completed but copying its output failed",
      generation_failed: "the provider reports the generation failed",
    }[stage];
    return {
      operationId: op.plan.operationId,
      attemptId: attempt.attemptId,
      stage,
      provider: op.plan.model.provider,
      model: op.plan.model.model,
      ...(knows && stage !== "submission_uncertain" && attempt.jobId
        ? { providerJobId: reportedJobId(this.world, attempt.jobId) }
        : {}),
      requestFingerprint: op.plan.fingerprint,
      request: { model: op.plan.model.model, seconds: op.plan.input.seconds },
      evidence: { summary: reason, observedAt: this.world.clock.iso(), source: "sim-shop" },
      submittedAt: new Date(attempt.submittedAt).toISOString(),
      retryDeadline: new Date(attempt.submittedAt + RETRY_DEADLINE_MS).toISOString(),
      hold: { holdId: attempt.holdId, amountMicros: op.plan.amountMicros, currency: "USD" },
    };
  }

  /** What the producer itself saw of the job decides the stage it reports. */
  private stageOf(attempt: AttemptRecord): ParkCaseInput["stage"] {
    if (!attempt.producerKnowsJob || !attempt.jobId) return "submission_uncertain";
    const job = this.world.simulator.state.jobs.get(attempt.jobId);
    const done = job !== undefined && phaseOf(job, this.world.clock.now()) === "done";
    if (!done || attempt.trouble === "status_checks") return "polling";
    if (job.outcome !== "succeeded") return "generation_failed";
    return attempt.trouble === "download" ? "delivery" : "polling";
  }

  private op(index: number): OpRecord {
    const op = this.world.ops[index];
    if (!op) throw new Error(`no operation ${index}`);
    return op;
  }
}

export const RETRY_DEADLINE = RETRY_DEADLINE_MS;
