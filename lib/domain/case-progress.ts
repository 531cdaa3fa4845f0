import type { CaseActionName } from "./available-actions";
import type { CaseState, RecoveryActionKind, Stage } from "./stages";

/**
 * What happened to a case last, and what it waits on now, in words an operator reads at a glance
 * (the queue's "Waiting on" column, the case page's header and banner). Pure: the facts come from
 * the case row, its latest recovery action and its replacement requests.
 */

/** Who or what must act next for the case to move. */
export type Party = "reviewer" | "worker" | "provider" | "finance" | "producer" | "nobody";

export type WaitingOn = { party: Party; why: string; until: string | null };

export type ProgressFacts = {
  stage: Stage;
  state: CaseState;
  outputsUnavailable: boolean;
  /** The last status check found that the provider does not know the job (decision 068). */
  jobUnknown?: boolean;
  /** Resolved with money still held. */
  holdOpen: boolean;
  pendingReplacement: boolean;
  /** A replacement finance authorised that the producer has not acknowledged yet. */
  replacementToSubmit: boolean;
  /** The live action's next run (ready) or lease end (claimed), when known. */
  readyAt?: string | null;
  leaseUntil?: string | null;
};

const PARKED_WAITS: Record<Stage, string> = {
  submission_uncertain: "attach the provider's job, or record that none exists",
  polling: "approve status checks (they never buy a new video)",
  delivery: "approve copying the finished video",
  generation_failed: "accept the failure, or request a replacement",
};

export function waitingOn(facts: ProgressFacts, now: number): WaitingOn {
  switch (facts.state) {
    case "ready": {
      const at = facts.readyAt ? Date.parse(facts.readyAt) : Number.NaN;
      if (at > now)
        return { party: "provider", why: "the next status check is scheduled", until: facts.readyAt ?? null };
      return { party: "worker", why: "approved: queued for the worker", until: null };
    }
    case "claimed":
      return { party: "worker", why: "a worker is running it now", until: facts.leaseUntil ?? null };
    case "resolved":
      if (facts.replacementToSubmit)
        return { party: "producer", why: "submit the authorised replacement", until: null };
      if (facts.holdOpen) return { party: "finance", why: "settle or release the money still held", until: null };
      return { party: "nobody", why: "done", until: null };
    case "parked":
      if (facts.pendingReplacement) return { party: "finance", why: "decide the replacement request", until: null };
      if (facts.stage === "delivery" && facts.outputsUnavailable) {
        return {
          party: "reviewer",
          why: "the outputs are gone: accept the loss, or request a replacement",
          until: null,
        };
      }
      if (facts.stage === "polling" && facts.jobUnknown) {
        return {
          party: "reviewer",
          why: "the provider does not know this job: attach a different one, or record that none exists",
          until: null,
        };
      }
      return { party: "reviewer", why: PARKED_WAITS[facts.stage], until: null };
  }
}

/** A recovery action as stored. */
export type ActionRecord = {
  id: string;
  kind: RecoveryActionKind;
  status: string;
  outcome: string | null;
  finishedAt: string | null;
};

export type LastAttempt = {
  kind: RecoveryActionKind;
  failed: boolean;
  /** What the worker found (its evidence), when the case still carries it. */
  reason: string | null;
  at: string;
  /** Finished attempts of this kind, the last one included. */
  count: number;
  /** How the action ended (`generation_failed`, `outputs_unavailable`, …), when known. */
  outcome?: string | null;
  /** The kind of the provider's answer to its last check (`not_found`, `failed`, …), when known. */
  answer?: string | null;
};

const ACTION_WORDS: Record<RecoveryActionKind, string> = {
  resume_poll: "Status check",
  retry_delivery: "Copying the video",
};

/** A provider's answer as the observation log keeps it: which claim's check it was, and its kind. */
export type AnswerRecord = { actionId: string | null; kind: string };

/**
 * The latest finished recovery (actions newest first), with the worker's words when `said` (the
 * evidence of the worker's latest finish, which names its action) is about that attempt, and the
 * provider's last answer to it among `answers` (newest first).
 */
export function lastAttempt(
  actions: readonly ActionRecord[],
  said: unknown,
  answers: readonly AnswerRecord[] = [],
): LastAttempt | null {
  const finished = actions.filter(
    (a) => a.finishedAt !== null && (a.status === "succeeded" || a.status === "unresolved"),
  );
  const last = finished[0];
  if (!last?.finishedAt) return null;
  const evidence = (said ?? {}) as { actionId?: unknown; evidence?: unknown };
  const reason = evidence.actionId === last.id && typeof evidence.evidence === "string" ? evidence.evidence : null;
  return {
    kind: last.kind,
    failed: last.status === "unresolved",
    reason,
    at: last.finishedAt,
    count: finished.filter((a) => a.kind === last.kind).length,
    outcome: last.outcome,
    answer: answers.find((a) => a.actionId === last.id)?.kind ?? null,
  };
}

/**
 * Whether the attempt itself worked and found the generation failed: the check did its job, so it
 * is not said to have failed (decision 061).
 */
export function foundGenerationFailed(attempt: LastAttempt): boolean {
  return attempt.failed && (attempt.outcome === "generation_failed" || attempt.answer === "failed");
}

/**
 * "Copying the video failed (attempt 2): the provider does not know job …", or, when the check
 * worked and the provider said the generation failed, "Status check found the generation failed: …".
 */
export function describeAttempt(attempt: LastAttempt): string {
  const what = ACTION_WORDS[attempt.kind];
  const nth = attempt.count > 1 ? ` (attempt ${attempt.count})` : "";
  if (!attempt.failed) return `${what} succeeded${nth}`;
  if (foundGenerationFailed(attempt)) return `${what}${nth} found ${attempt.reason ?? "the generation failed"}`;
  return `${what} failed${nth}${attempt.reason ? `: ${attempt.reason}` : ""}`;
}

/**
 * After a failed attempt, the decisions that do not repeat it come first: a different job or "no job
 * exists" where the provider does not know the job (decision 068), then accepting or escalating.
 */
const AFTER_FAILURE: readonly CaseActionName[] = [
  "reconcile_attach",
  "reconcile_no_job",
  "accept_outputs_lost",
  "accept_failure",
  "request_replacement",
  "review",
  "approve",
];

/**
 * The permitted decisions in the order the evidence supports: as offered, except that after a
 * failed recovery, escalating or accepting what happened comes before repeating what just failed.
 */
export function orderDecisions(available: Iterable<CaseActionName>, last: LastAttempt | null): CaseActionName[] {
  const names = [...available];
  if (!last?.failed) return names;
  const rank = (name: CaseActionName) => {
    const at = AFTER_FAILURE.indexOf(name);
    return at === -1 ? AFTER_FAILURE.length : at;
  };
  return names.sort((a, b) => rank(a) - rank(b));
}
