import { requestFingerprint } from "@/lib/domain/fingerprint";
import { env } from "@/lib/env";
import { reportOutcome } from "@/lib/services/permit/report-outcome";
import { requestPermit } from "@/lib/services/permit/request-permit";
import type { Steps } from "./steps";
import { count, producerOf, reportedJobId, type World } from "./world";

const MINUTE = 60_000;

/**
 * A shop that squats on other shops' jobs (rule 17): every account lists every job on it, so when
 * another shop's send went quiet after its create (the shop died before reporting), this shop asks
 * for a permit of its own and reports that job as its send's `accepted`, before the owner's evidence
 * arrives. The product must leave the job to the operation whose signed reference the provider's
 * webhook carries: the auditor's "bytes delivered to an operation that did not create the job" and
 * "holds settled by another operation's job" stay 0. Only victims whose provider signs webhooks
 * and whose webhook is not lost are chosen: with no evidence from the provider ever arriving, the
 * product cannot tell the squatter from the owner (decision 038).
 */
export class JobSquatter {
  private readonly squatted = new Set<number>();

  constructor(
    private readonly world: World,
    private readonly steps: Steps,
  ) {}

  /** On the arrival of operation `index`, its shop squats if it is a squatting one and a victim exists. */
  async maybeSquat(index: number): Promise<void> {
    if (index % 4 !== 1) return;
    const op = this.world.ops[index];
    if (!op) return;
    const victim = this.victimFor(index, op.plan.producer);
    if (victim === null) return;
    const target = this.world.ops[victim];
    const jobId = target?.attempts.find((a) => a.jobId !== null)?.jobId;
    if (!target || !jobId) return;
    this.squatted.add(victim);
    const shop = producerOf(this.world, op).principal;
    const operationId = `${op.plan.operationId}-squat`;
    const attemptId = `${operationId}-a1`;
    const permit = await this.steps.call(
      index,
      "squatter",
      `asks for a permit to squat on operation ${victim}'s job`,
      () =>
        requestPermit(
          this.world.db,
          shop,
          operationId,
          {
            attemptId,
            requestFingerprint: requestFingerprint({ squat: operationId }),
            provider: target.plan.model.provider,
            model: target.plan.model.model,
            hold: { holdId: `${attemptId}-hold`, amountMicros: 1_000, currency: "USD" },
            // As the producer SDK sets it (the product checks it against its own clock).
            sendDeadline: new Date(Date.now() + 10 * MINUTE).toISOString(),
          },
          env(),
        ),
    );
    if (!permit.ok) return;
    const reported = await this.steps.call(
      index,
      "squatter",
      `reports operation ${victim}'s job as its own send's`,
      () =>
        reportOutcome(this.world.db, shop, attemptId, {
          operationId,
          token: 1,
          outcome: "accepted",
          providerJobId: reportedJobId(this.world, jobId),
          evidence: { summary: "seen in the shared job list", observedAt: this.world.clock.iso() },
        }),
      // Refused when the owner's reference, or the provider's facts, already tie the job to its owner.
      ["provider_job_in_use"],
    );
    count(this.world, `squatted jobs: ${reported.ok ? "held by the squatter until the evidence arrives" : "refused"}`);
  }

  /** A recent operation of another shop whose send went quiet after its create, with a signed webhook on the way. */
  private victimFor(index: number, producer: number): number | null {
    for (let other = index - 1; other >= Math.max(0, index - 30); other--) {
      const candidate = this.world.ops[other];
      const plan = candidate?.plan.permit;
      if (!candidate || !plan || candidate.plan.producer === producer || this.squatted.has(other)) continue;
      if (!["replicate", "fal"].includes(candidate.plan.model.provider) || plan.webhook.lost) continue;
      if (!candidate.crashedAfterSend || !candidate.attempts.some((a) => a.jobId !== null)) continue;
      return other;
    }
    return null;
  }
}
