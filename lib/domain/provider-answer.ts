import type { DownloadFailure, JobStatus, OutputRef } from "./job-status";
import { permittedRecoveryAction, type RecoveryActionKind, type Stage } from "./stages";

/**
 * What the worker does with a claimed action once it knows what the provider says. Every verdict
 * but `deliver` ends (or hands back) the claim; `deliver` carries on to the copy within it.
 * - keep_polling: the job is still running; look again after the usual backoff (`checks` so far).
 * - retry_later: the provider throttled the read (a poll's or a delivery's); look again when it allows (`afterMs`).
 * - deliver: the job finished with outputs; copy them (the observation settles the hold first).
 * - record_failed: an authoritative failure seen by a status check: the case becomes generation_failed.
 * - outputs_unavailable: the job finished but its outputs are gone; a copy cannot succeed (rule 13).
 * - park: nothing was learnt that moves the case on; it waits for a reviewer with the evidence.
 */
export type Verdict =
  | { kind: "keep_polling"; evidence: string; checks: number }
  | { kind: "retry_later"; evidence: string; afterMs: number }
  | { kind: "deliver"; outputs: [OutputRef, ...OutputRef[]] }
  | { kind: "record_failed"; stage: "generation_failed"; evidence: string }
  | { kind: "outputs_unavailable"; evidence: string }
  | { kind: "park"; evidence: string };

type Parked = Extract<Verdict, { kind: "park" }>;

/** A status check made under a claim, as the observation log remembers it. */
export type PastCheck = { kind: string; actionId: string | null; fencingToken: number | null };

/** What the policy needs to know about the case besides the answer. */
export type AnswerContext = {
  providerJobId: string;
  /** Status checks recorded for the case so far (the backoff grows with them). */
  checksSoFar: number;
  /** The claim asking now. */
  claim: { actionId: string; fencingToken: number };
  /** This episode's latest checks before this one, newest first; only read when `earlierChecksNeeded` says so. */
  earlierChecks?: readonly PastCheck[];
};

/**
 * Status checks of separate claims that must all answer "not found" before a delivery gives up on
 * the job. A single not-found can be a stale replica; the same answer again on a later claim means
 * the job (or the ID the producer gave) is not there to deliver from, and a delivery that can only
 * retry would otherwise stay parked forever (rule 13).
 */
export const NOT_FOUND_CHECKS_THAT_AGREE = 2;

/**
 * Which stage's policy applies to a claimed action, or null when none can: a resume_poll that saw
 * its job complete carries on (or is claimed again) as the delivery's copy, so delivery accepts
 * both kinds; a status check has no business with a retry_delivery, and the other stages have no
 * recovery action at all.
 */
function policyStage(stage: Stage, actionKind: RecoveryActionKind): "polling" | "delivery" | null {
  if (stage === "delivery") return "delivery";
  if (stage === "polling" && actionKind === permittedRecoveryAction(stage)) return "polling";
  return null;
}

export type BeforeAsking = {
  provider: string;
  providerConfigured: boolean;
  providerJobId: string | null;
};

/** A verdict reached without asking the provider (there is nothing to ask, or no one to ask), or null. */
export function verdictBeforeAsking(stage: Stage, actionKind: RecoveryActionKind, facts: BeforeAsking): Parked | null {
  if (policyStage(stage, actionKind) === null) {
    return { kind: "park", evidence: `a ${actionKind} action cannot run on a ${stage} case: the job was not checked` };
  }
  // Live mode runs with the providers that have keys; a case for another one parks with the
  // reason on its timeline rather than failing the whole tick.
  if (!facts.providerConfigured) {
    return {
      kind: "park",
      evidence: `provider "${facts.provider}" is not configured in this deployment (no API key in live mode): the job was not checked`,
    };
  }
  if (!facts.providerJobId) return { kind: "park", evidence: "the case has no provider job ID to check" };
  return null;
}

/**
 * The adapter could not even form the request (e.g. a malformed model id): that will not fix itself
 * on a retry, so the case parks with the reason instead of failing the same way after every lease expiry.
 */
export function verdictWhenCheckFailed(reason: string): Parked {
  return { kind: "park", evidence: `the status check could not be made: ${reason}` };
}

/** Whether the answer's meaning depends on the episode's earlier checks (the two-claims rule). */
export function earlierChecksNeeded(stage: Stage, actionKind: RecoveryActionKind, answer: JobStatus): boolean {
  return policyStage(stage, actionKind) === "delivery" && answer.kind === "not_found";
}

const claimKey = (check: { actionId: string | null; fencingToken: number | null }) =>
  `${check.actionId ?? ""}:${check.fencingToken ?? ""}`;

/** True when this not-found and the earlier checks are all not-found, each from a different claim. */
function forgottenOnSeparateClaims(context: AnswerContext): boolean {
  const checks = [{ kind: "not_found", ...context.claim }, ...(context.earlierChecks ?? [])].slice(
    0,
    NOT_FOUND_CHECKS_THAT_AGREE,
  );
  return (
    checks.length === NOT_FOUND_CHECKS_THAT_AGREE &&
    checks.every((check) => check.kind === "not_found") &&
    new Set(checks.map(claimKey)).size === NOT_FOUND_CHECKS_THAT_AGREE
  );
}

/**
 * What a provider's answer means for a claimed action, decided on the stage the claim found the
 * case in. Pure: the caller records the answer as an observation and then applies the verdict.
 * A transport error or throttling is never read as a failure, and nothing is ever guessed failed.
 */
export function meaningOf(
  stage: Stage,
  actionKind: RecoveryActionKind,
  answer: JobStatus,
  context: AnswerContext,
): Verdict {
  const policy = policyStage(stage, actionKind);
  if (policy === null) {
    return { kind: "park", evidence: `a ${actionKind} action cannot run on a ${stage} case` };
  }
  switch (answer.kind) {
    case "running":
      return policy === "polling"
        ? {
            kind: "keep_polling",
            evidence: `provider status ${answer.providerStatus}: still running`,
            checks: context.checksSoFar + 1,
          }
        : { kind: "park", evidence: "the job is running again; delivery cannot start" };
    case "completed": {
      if (answer.outputsRemoved) {
        return {
          kind: "outputs_unavailable",
          evidence: `provider status ${answer.providerStatus}: the outputs were removed (retention passed)`,
        };
      }
      const [first, ...rest] = answer.outputs;
      if (!first) return { kind: "park", evidence: unreadableCompletion(answer) };
      return { kind: "deliver", outputs: [first, ...rest] };
    }
    case "failed": {
      // A failure seen while delivering contradicts the completion seen before: a reviewer decides.
      // Said as what happened: the check worked and found the generation failed (decision 061).
      const status = answer.providerStatus === "failed" ? "" : ` (${answer.providerStatus})`;
      const evidence = `the generation failed${status}: ${answer.reason}`;
      return policy === "polling"
        ? { kind: "record_failed", stage: "generation_failed", evidence }
        : { kind: "park", evidence };
    }
    case "unknown":
      // Completion was seen before (the case is a delivery), so a result that is gone now means the
      // provider deleted it (fal keeps results for an hour), not that the outcome is in doubt.
      if (policy === "delivery" && answer.reason === "result_unavailable") {
        return {
          kind: "outputs_unavailable",
          evidence: `the provider no longer has the job's result (HTTP ${answer.httpStatus ?? "?"})`,
        };
      }
      // Throttling says nothing about the job: look again when the provider allows it, whether
      // the read was a status check or a delivery's (a throttled delivery is not a reason to park).
      if (answer.retryAfterMs !== undefined && answer.retryAfterMs > 0) {
        return {
          kind: "retry_later",
          evidence: `provider throttled the check (${answer.reason})`,
          afterMs: answer.retryAfterMs,
        };
      }
      return { kind: "park", evidence: `status unknown after ${answer.attempts} attempts: ${answer.reason}` };
    case "not_found":
      if (policy === "delivery" && forgottenOnSeparateClaims(context)) {
        return {
          kind: "outputs_unavailable",
          evidence: `the provider did not know job ${context.providerJobId} on two separate checks (HTTP ${answer.httpStatus}): there is nothing to copy`,
        };
      }
      return {
        kind: "park",
        evidence: `the provider does not know job ${context.providerJobId} (HTTP ${answer.httpStatus})`,
      };
  }
}

/**
 * A completion whose answer names no output this product can read. The provider completed the job,
 * so its charge is certain and the hold settles with the observation (docs/design.md rule 18: every
 * paid video has a charge record); but nothing says the video is missing, so the case must not read
 * as "nothing to deliver". It parks in delivery for a person, with the provider's answer kept on the
 * observation, and its next step is theirs (rule 13): a retry of the delivery once the answer can be
 * read, or marking the outputs unavailable, which opens the way to a replacement.
 */
export function unreadableCompletion(answer: Extract<JobStatus, { kind: "completed" }>): string {
  return `${unreadableAnswerWords(answer)}: the charge stands, and a person decides whether to retry the delivery or mark the outputs unavailable`;
}

/** The finding itself, in words, and where its evidence is. */
export function unreadableAnswerWords(answer: Extract<JobStatus, { kind: "completed" }>): string {
  const kept = answer.evidence?.unreadableAnswer !== undefined ? "; its answer is kept on the observation" : "";
  return `the provider reports the job completed (${answer.providerStatus}), but its answer holds no output this product can read${kept}`;
}

/** The words a completion's move to delivery is recorded with. */
export function completionEvidence(answer: Extract<JobStatus, { kind: "completed" }>): string {
  if (answer.outputs.length === 0 && !answer.outputsRemoved) return unreadableCompletion(answer);
  return `provider reports ${answer.providerStatus}`;
}

/** What a failed copy of output `outputIndex` means: a file the host no longer serves cannot be copied later either. */
export function meaningOfCopyFailure(
  outputIndex: number,
  failure: { reason: DownloadFailure; detail: string },
): Extract<Verdict, { kind: "outputs_unavailable" | "park" }> {
  const evidence = `copying output ${outputIndex} failed: ${failure.reason} (${failure.detail}); nothing was published`;
  return failure.reason === "not_available" ? { kind: "outputs_unavailable", evidence } : { kind: "park", evidence };
}

/** Only the saving step fetches from the output URLs a completion handed out (decision 043). */
export function usesKeptOutputs(stage: Stage): boolean {
  return stage === "delivery";
}

/**
 * A kept output URL the host no longer serves proves nothing about the outputs (its signature may
 * lapse before the provider's retention does): the provider is asked again (decision 043).
 */
export function asksAgainAfterCopyFailure(fromKeptUrls: boolean, reason: DownloadFailure): boolean {
  return fromKeptUrls && reason === "not_available";
}
