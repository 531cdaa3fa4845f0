import type { JobStatus } from "./job-status";
import { unreadableAnswerWords } from "./provider-answer";
import type { PermitStatus } from "./send-permits";
import type { CaseState, Stage } from "./stages";

/**
 * What a provider's verified webhook (DESIGN 8) is about, as found in the database: the case of the
 * operation that owns the job, a send permit whose attempt owns it and has no case yet, an
 * uncertain case named by the signed reference the producer's webhook URL carried, or nothing.
 */
export type WebhookTarget =
  | { kind: "case"; stage: Stage; state: CaseState }
  | { kind: "permit"; status: PermitStatus }
  /** The case of the operation the webhook URL's signed reference names; `providerJobId` is the case's job. */
  | { kind: "referenced_case"; stage: Stage; state: CaseState; providerJobId: string | null }
  | { kind: "referenced_permit"; status: PermitStatus }
  /** The job is owned, by an attempt its operation has moved on from (an earlier episode, a replaced attempt). */
  | { kind: "superseded_attempt" }
  | { kind: "none" };

export type WebhookVerdict =
  /** A parked job check converges on the provider's word: completion (outputs recorded, hold settled) or failure. */
  | { kind: "converge"; stage: "delivery" | "generation_failed"; settle: boolean; evidence: string }
  /** The permit's send is answered by the provider itself, as if the producer had reported it. */
  | { kind: "report_permit"; outcome: "accepted" | "completed" | "failed" }
  /**
   * The reference proves the producer's own request created this job: attach it to the uncertain
   * case; `reopen` first returns a case that a "no job exists" verdict failed to reconciliation
   * (the verdict is contradicted, so nothing may be bought to replace it).
   */
  | { kind: "attach"; reopen: boolean; andThen: WebhookVerdict }
  /** Kept as evidence; nothing moves (a running job, a case a worker holds, a case past this point). */
  | { kind: "observe"; reason: string }
  /** No operation owns the job: kept, sanitised, to be matched later. */
  | { kind: "unmatched" };

const observe = (reason: string): WebhookVerdict => ({ kind: "observe", reason });

/**
 * What a verified webhook's answer means for its target. Pure, and monotone: it only ever moves a
 * case or a permit forwards (a `processing` arriving after `succeeded` finds the case past polling
 * and is only kept), and it leaves any case a worker holds or is about to claim to that worker's
 * own status check, so a webhook racing a check ends in one outcome.
 */
export function meaningOfWebhook(target: WebhookTarget, answer: JobStatus): WebhookVerdict {
  switch (target.kind) {
    case "none":
      return { kind: "unmatched" };
    case "superseded_attempt":
      return observe("the job belongs to an attempt its operation has moved on from");
    case "case":
      return forCase(target.stage, target.state, answer);
    case "permit":
    case "referenced_permit":
      return forPermit(target.status, answer);
    case "referenced_case": {
      const uncertain = target.stage === "submission_uncertain";
      // A failure recorded with no job (a "no job exists" verdict) is contradicted by the job's own webhook.
      const failedWithoutJob = target.stage === "generation_failed" && target.providerJobId === null;
      if (target.state !== "parked" || !(uncertain || failedWithoutJob)) {
        return observe(
          `the referenced operation's case is ${target.stage}/${target.state}, not an uncertain submission nor a failure without a job`,
        );
      }
      return { kind: "attach", reopen: failedWithoutJob, andThen: forCase("polling", "parked", answer) };
    }
  }
}

/** What an answer that moves nothing says, in words (an observation is read by people). */
const ANSWER_WORDS: Readonly<Record<JobStatus["kind"], string>> = {
  running: "the provider reports the job still running",
  completed: "the provider reports the job completed",
  failed: "the provider reports the generation failed",
  not_found: "the provider does not know the job",
  unknown: "the provider's answer says nothing certain about the job",
};

function forCase(stage: Stage, state: CaseState, answer: JobStatus): WebhookVerdict {
  if (state === "resolved") return observe("the case is resolved");
  if (state !== "parked") return observe(`a worker holds or is about to check the case (${state})`);
  if (stage !== "polling") return observe(`the case is past status checks (${stage})`);
  switch (answer.kind) {
    case "completed":
      if (answer.outputsRemoved) return observe("the provider reports the outputs already removed");
      // Nothing is settled or moved on a webhook that names nothing to copy: the status check a
      // reviewer approves settles it and parks the case for a person (provider-answer.ts).
      if (answer.outputs.length === 0) return observe(unreadableAnswerWords(answer));
      return {
        kind: "converge",
        stage: "delivery",
        settle: true,
        evidence: `the provider's signed webhook reports ${answer.providerStatus}`,
      };
    case "failed":
      return {
        kind: "converge",
        stage: "generation_failed",
        settle: false,
        evidence: `the provider's signed webhook reports ${answer.providerStatus}: ${answer.reason}`,
      };
    default:
      return observe(ANSWER_WORDS[answer.kind]);
  }
}

function forPermit(status: PermitStatus, answer: JobStatus): WebhookVerdict {
  if (status !== "live" && status !== "accepted") return observe(`the permit is ${status}`);
  switch (answer.kind) {
    case "running":
      return status === "live" ? { kind: "report_permit", outcome: "accepted" } : observe("the job is running");
    case "completed":
      return { kind: "report_permit", outcome: "completed" };
    case "failed":
      return { kind: "report_permit", outcome: "failed" };
    default:
      return observe(ANSWER_WORDS[answer.kind]);
  }
}
