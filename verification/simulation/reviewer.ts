import { canBeSearched } from "@/lib/providers/capabilities";
import { DEFAULT_NO_JOB_SETTLING_SECONDS } from "@/lib/providers/registry";
import type { UserActor } from "@/lib/services/access/actor";
import { acceptFailure } from "@/lib/services/case/accept-failure";
import { acceptOutputsLost } from "@/lib/services/case/accept-outputs-lost";
import { approveCase } from "@/lib/services/case/approve-case";
import { confirmSuggestion } from "@/lib/services/case/confirm-suggestion";
import { restsOnNoJob } from "@/lib/services/case/look-for-original-job";
import { reconcileCase } from "@/lib/services/case/reconcile-case";
import { reviewCase } from "@/lib/services/case/review-case";
import { requestReplacement } from "@/lib/services/replacement/request-replacement";
import { phaseOf } from "@/verification/simulator/jobs";
import { CaseDesk, traceName } from "./case-desk";
import type { CaseView } from "./case-views";
import { RETRY_DEADLINE } from "./producer";
import { count, type OpRecord, reportedJobId, violate, wrongAnswer } from "./world";

const MINUTE = 60_000;
const SETTLING_MS = Math.max(...Object.values(DEFAULT_NO_JOB_SETTLING_SECONDS)) * 1000;
const MAX_REVIEWS = 6;
const MAX_REPLACEMENTS = 2;

/**
 * Reviewers: they reconcile uncertain submissions with evidence (a suggestion the worker found, a
 * job ID from the producer's logs, or "no job" once the settling period is over), approve only the
 * recovery the stage permits, and for proven failures accept them or ask for a replacement.
 * Now and then they try what the product must refuse.
 */
export class Reviewer extends CaseDesk {
  async visit(index: number): Promise<void> {
    const visit = this.caseToVisit(index, "review");
    if (visit?.view.state !== "parked") return;
    const { op, view } = visit;
    const { who, as } = this.pickPerson(op, this.world.people.reviewers, "reviewer");
    if (view.stage === "submission_uncertain") return this.reconcile(index, op, view, who, as);
    if (view.stage === "polling") return this.approve(index, op, view, who, as, "resume_poll");
    if (view.stage === "delivery") return this.approve(index, op, view, who, as, "retry_delivery");
    return this.decideFailure(index, op, view, who, as);
  }

  private async reconcile(index: number, op: OpRecord, view: CaseView, who: UserActor, as: string) {
    const db = this.world.db;
    const rng = op.plan.rng;
    if (op.plan.seams.chance(0.04) && (await this.attachAnotherOperationsJob(index, view, who, as))) return;
    const attempt = op.attempts.find((a) => a.attemptId === view.attemptId);
    const jobId = attempt?.jobId ?? null;
    const reported = jobId ? reportedJobId(this.world, jobId) : null;
    const { rows } = reported
      ? await this.world.sql.query<{ id: string; matched: unknown }>(
          `SELECT id::text, matched FROM reconciliation_suggestions
           WHERE case_id = $1::uuid AND episode = $2 AND status = 'open' AND provider_job_id = $3`,
          [view.id, view.episode, reported],
        )
      : { rows: [] };
    const suggestion = rows[0];
    if (suggestion) {
      // Without a fingerprint match (the provider dropped the request), the reviewer checks the
      // provider's usage records for the submission's minute (DESIGN section 7) before confirming.
      const proof = JSON.stringify(suggestion.matched).includes("fingerprint")
        ? "request fingerprint matches"
        : "usage record shows our charge at the submission minute";
      if (!proof.startsWith("request")) count(this.world, "suggestions confirmed on the provider's usage records");
      // Another shop may have registered this job by mistake first: the job is then refused as theirs.
      await this.steps.call(
        index,
        as,
        "confirms the suggested job",
        () => confirmSuggestion(db, who, view.id, { suggestionId: suggestion.id, evidence: proof }),
        ["provider_job_in_use"],
      );
      return;
    }
    const job = jobId ? this.world.simulator.state.jobs.get(jobId) : undefined;
    const now = this.world.clock.now();
    if (job && reported && phaseOf(job, now) !== "hidden" && op.plan.reviewerFindsJob) {
      await this.steps.call(
        index,
        as,
        "attaches the job found in the producer's logs",
        () =>
          reconcileCase(db, who, view.id, {
            verdict: "attach",
            providerJobId: reported,
            evidence: "job id in the app log",
          }),
        ["provider_job_in_use"],
      );
      return;
    }
    if (rng.chance(0.05)) {
      await this.steps.call(
        index,
        as,
        "tries to approve a status check before reconciling",
        () => approveCase(db, who, view.id, { action: "resume_poll", evidence: "just poll it" }),
        ["reconciliation_required"],
      );
    }
    const settled = (attempt?.submittedAt ?? now) + RETRY_DEADLINE + SETTLING_MS;
    if (now < settled) {
      if (rng.chance(0.1)) {
        await this.steps.call(
          index,
          as,
          "says no job exists too early",
          () =>
            reconcileCase(db, who, view.id, { verdict: "no_job", evidence: "nothing listed" }, { now: new Date(now) }),
          ["too_early"],
        );
      }
      this.visitAgain(op, index, "review", Math.min(settled - now, 15 * MINUTE));
      return;
    }
    if (job) count(this.world, "no-job verdicts although the provider had the job (its list lagged)");
    const verdict = await this.steps.call(
      index,
      as,
      "records that no job exists",
      () =>
        reconcileCase(
          db,
          who,
          view.id,
          {
            verdict: "no_job",
            evidence: canBeSearched(view.provider)
              ? "provider list searched past the settling period"
              : "no charge in the provider's usage export for the submission window",
          },
          { now: new Date(now) },
        ),
      // The provider's own settling period may be longer than the default the reviewer waited for.
      ["too_early"],
    );
    if (!verdict.ok && verdict.code === "too_early") this.visitAgain(op, index, "review", 15 * MINUTE);
  }

  /**
   * The reviewer copies the wrong job ID from the provider's dashboard: one that another operation
   * already owns. The product must refuse it (409 provider_job_in_use). True when it was accepted.
   */
  private async attachAnotherOperationsJob(index: number, view: CaseView, who: UserActor, as: string) {
    const owned = this.ownedJobOfAnotherOperation(index, view.provider);
    if (!owned) return false;
    const attached = await this.steps.call(
      index,
      as,
      "attaches a job another operation owns",
      () =>
        reconcileCase(this.world.db, who, view.id, {
          verdict: "attach",
          providerJobId: owned,
          evidence: "job id from the dashboard",
        }),
      ["provider_job_in_use"],
    );
    if (!attached.ok) return false;
    wrongAnswer(this.world, index, "an attach naming another operation's job was accepted");
    return true;
  }

  private ownedJobOfAnotherOperation(index: number, provider: string): string | null {
    for (let other = index - 1; other >= Math.max(0, index - 30); other--) {
      const caseId = this.world.ops[other]?.caseId;
      const owner = caseId ? this.steps.view(caseId) : undefined;
      if (owner?.providerJobId && owner.provider === provider) return owner.providerJobId;
    }
    return null;
  }

  private async approve(
    index: number,
    op: OpRecord,
    view: CaseView,
    who: UserActor,
    as: string,
    action: "resume_poll" | "retry_delivery",
  ) {
    const db = this.world.db;
    const rng = op.plan.rng;
    op.reviews += 1;
    if (action === "retry_delivery" && (await this.outputsGone(view))) {
      return this.decideLostOutputs(index, op, view, who, as);
    }
    if (op.reviews > MAX_REVIEWS) {
      op.gaveUp = true;
      count(this.world, "cases a reviewer escalated after repeated failures (left parked with evidence)");
      await this.steps.call(index, as, "escalates after repeated failures", () =>
        reviewCase(db, who, view.id, { verdict: "escalate", evidence: "recovery keeps failing; needs the provider" }),
      );
      return;
    }
    if (rng.chance(0.07)) {
      const verdict = rng.chance(0.5) ? "reject" : "escalate";
      await this.steps.call(index, as, `${verdict}s for now`, () =>
        reviewCase(db, who, view.id, { verdict, evidence: "waiting for the provider's status page" }),
      );
      this.visitAgain(op, index, "review", rng.int(10, 60) * MINUTE);
      return;
    }
    if (rng.chance(0.03)) {
      const other = action === "resume_poll" ? "retry_delivery" : "resume_poll";
      await this.steps.call(
        index,
        as,
        `tries ${other} on a ${view.stage} case`,
        () => approveCase(db, who, view.id, { action: other, evidence: "try the other one" }),
        ["action_not_permitted_for_stage"],
      );
    }
    const approved = await this.steps.call(index, as, `approves ${action}`, () =>
      approveCase(db, who, view.id, { action, evidence: `stage ${view.stage} permits ${action}` }),
    );
    if (approved.ok && rng.chance(0.05)) {
      const again = await this.steps.call(index, as, `approves ${action} again`, () =>
        approveCase(db, who, view.id, { action, evidence: "double click" }),
      );
      if (again.ok && (again.value.created || again.value.actionId !== approved.value.actionId)) {
        violate(this.world, "unexpectedRefusals", index, "a second identical approval created a second action");
      }
    }
  }

  /** The worker found the provider's files gone (retention passed): retrying cannot help. */
  private async outputsGone(view: CaseView): Promise<boolean> {
    const { rows } = await this.world.sql.query<{ gone: boolean }>(
      `SELECT outputs_unavailable_at IS NOT NULL AS gone FROM cases WHERE id = $1::uuid`,
      [view.id],
    );
    return rows[0]?.gone === true;
  }

  /** Paid, not delivered: the loss is accepted (the hold stays for finance) or a replacement asked for. */
  private async decideLostOutputs(index: number, op: OpRecord, view: CaseView, who: UserActor, as: string) {
    const db = this.world.db;
    const rng = op.plan.rng;
    if (rng.chance(0.05)) {
      await this.steps.call(
        index,
        as,
        "tries another copy of deleted outputs",
        () => approveCase(db, who, view.id, { action: "retry_delivery", evidence: "try again" }),
        ["outputs_unavailable"],
      );
    }
    if (view.pendingRequests.some((request) => !op.expiredRequests.has(request.id))) return;
    if (op.replacementsRequested < MAX_REPLACEMENTS && rng.chance(0.4)) {
      count(this.world, "deliveries whose outputs the provider deleted first: replacement requested");
      const requested = await this.steps.call(index, as, "requests a replacement for deleted outputs", () =>
        requestReplacement(db, who, view.id, { evidence: "outputs deleted by the provider before the copy" }),
      );
      if (requested.ok) op.replacementsRequested += 1;
      return;
    }
    count(this.world, "deliveries whose outputs the provider deleted first: loss accepted (hold kept for finance)");
    await this.steps.call(index, as, "accepts that the outputs are lost", () =>
      acceptOutputsLost(db, who, view.id, { evidence: "outputs deleted by the provider; paid, not delivered" }),
    );
  }

  private async decideFailure(index: number, op: OpRecord, view: CaseView, who: UserActor, as: string) {
    const db = this.world.db;
    const rng = op.plan.rng;
    if (view.pendingRequests.some((request) => !op.expiredRequests.has(request.id))) return;
    // Rule 14 cannot be met where the original job cannot be looked for: the failure is accepted.
    const unsearchable = !canBeSearched(view.provider) && (await restsOnNoJob(db, view.id, view.episode));
    if (unsearchable) {
      count(this.world, "unsearchable 'no job exists' failures: accepted, no replacement");
      if (rng.chance(0.2)) {
        await this.steps.call(
          index,
          as,
          "asks for a replacement of a job that cannot be looked for",
          () => requestReplacement(db, who, view.id, { evidence: "nothing in the usage export" }),
          ["provider_cannot_be_searched"],
        );
      }
    } else if (op.replacementsRequested < MAX_REPLACEMENTS && rng.chance(0.55)) {
      const requester = rng.chance(0.15) ? this.world.people.dual : who;
      const requested = await this.steps.call(index, traceName(requester, as), "requests a replacement", () =>
        requestReplacement(db, requester, view.id, { evidence: "provider reports the generation failed" }),
      );
      if (requested.ok) op.replacementsRequested += 1;
      return;
    }
    const evidence = unsearchable
      ? "no job found; the provider cannot be searched before paying again"
      : "provider reports the generation failed";
    await this.steps.call(index, as, "accepts the failure", () => acceptFailure(db, who, view.id, { evidence }));
  }
}
