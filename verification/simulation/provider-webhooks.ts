import { completedAt } from "@/verification/simulator/jobs";
import type { HeldWebhook } from "@/verification/simulator/webhooks";
import { inProcessFetch } from "./in-process-fetch";
import type { PermitPlan } from "./op-plan";
import type { Steps } from "./steps";
import { count, type OpRecord, type World, wrongAnswer } from "./world";

type Due = HeldWebhook & { at: number };

/**
 * The providers' signed webhooks for jobs created with a webhook URL: held by the provider
 * simulator and delivered here, on the simulation's clock, to the product's webhook routes, with
 * the operation's faults: never sent, late (reordered against everything else), a badly signed
 * copy first, the same message twice, a stale `processing` after the final event.
 */
export class ProviderWebhookDesk {
  private readonly due = new Map<OpRecord, Due[]>();
  /** Webhook URLs seen per operation (each carries its permit's signed reference), for the transplanting attacker. */
  private readonly urls: { index: number; producer: number; provider: string; url: string }[] = [];

  constructor(
    private readonly world: World,
    private readonly steps: Steps,
  ) {}

  /** Takes what the provider scheduled for the create just made, and books its delivery. */
  collect(index: number, op: OpRecord, plan: PermitPlan): void {
    for (const held of this.world.simulator.state.webhooks.takeHeld()) {
      if (plan.webhook.lost) {
        count(this.world, "provider webhooks: never sent");
        continue;
      }
      // Job timings are whole quanta from a whole-quantum creation time, and so is the delay.
      const at = Math.max(completedAt(held.job) + plan.webhook.delayMs, this.world.clock.now());
      const list = this.due.get(op) ?? [];
      this.urls.push({ index, producer: op.plan.producer, provider: held.job.provider, url: held.url });
      list.push({ ...held, at });
      list.sort((a, b) => a.at - b.at);
      this.due.set(op, list);
      this.world.schedule.add(this.steps.later(at - this.world.clock.now()), index, "provider_webhook");
    }
  }

  async deliver(index: number, op: OpRecord): Promise<void> {
    const next = this.due.get(op)?.shift();
    const plan = op.plan.permit;
    if (!next || !plan) return;
    const faults = { ...plan.webhook, delayMs: 0 };
    const label = Object.entries(faults)
      .filter(([name, on]) => on === true && name !== "lost")
      .map(([name]) => name)
      .join(", ");
    const answers = await this.steps.call(index, "provider", `sends its signed webhook [${label || "once"}]`, () =>
      this.world.simulator.state.webhooks.deliver(next.job, next.url, next.body, faults, {
        idSeed: `${this.world.seed} ${next.job.id}`,
        fetchImpl: inProcessFetch,
      }),
    );
    if (!answers.ok) return;
    const statuses = [...answers.value];
    if (faults.badSignatureFirst && statuses.shift() !== 401)
      wrongAnswer(this.world, index, "a badly signed provider webhook was not refused with 401");
    if (statuses.some((status) => status !== 200))
      wrongAnswer(this.world, index, `a signed provider webhook was answered ${statuses.join(", ")}`);
    count(this.world, "provider webhooks: delivered");
    if (faults.duplicate) count(this.world, "provider webhooks: the same message twice");
    if (faults.lateProcessing) count(this.world, "provider webhooks: a stale event after the final one");
    if (index % 6 === 2) await this.transplant(index, op, next);
  }

  /**
   * A transplanting attacker (rule 17): a shop on the same account, holding a validly signed body for
   * this job, sends it again with another shop's operation's reference on the URL. The product must
   * keep it as a transplant and attach or settle nothing (the auditor's ownership figures say).
   */
  private async transplant(index: number, op: OpRecord, held: Due): Promise<void> {
    const other = this.urls.findLast(
      (u) => u.index !== index && u.producer !== op.plan.producer && u.provider === held.job.provider,
    );
    if (!other) return;
    const faults = { duplicate: false, lateProcessing: false, badSignatureFirst: false, delayMs: 0 };
    const answers = await this.steps.call(
      index,
      "attacker",
      `sends this job's signed body with operation ${other.index}'s reference`,
      () =>
        this.world.simulator.state.webhooks.deliver(held.job, other.url, held.body, faults, {
          idSeed: `${this.world.seed} transplant ${held.job.id}`,
          fetchImpl: inProcessFetch,
        }),
    );
    if (!answers.ok) return;
    if ([...answers.value].some((status) => status !== 200))
      wrongAnswer(this.world, index, `a transplanted webhook was answered ${[...answers.value].join(", ")}`);
    count(this.world, "provider webhooks: transplanted onto another operation's reference");
  }
}
