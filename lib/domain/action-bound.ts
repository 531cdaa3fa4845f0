import { permittedRecoveryAction, type RecoveryActionKind, type Stage } from "./stages";

/**
 * How far one approved recovery action may go (DESIGN rule 19): claims of it, and time since it
 * was approved. Past either, the action is not scheduled again; its case goes back to a person.
 */
export type ActionBound = { maxAttempts: number; maxSeconds: number };

/** Where an action stands against its bound when a check asks to be scheduled again. */
export type ActionProgress = {
  /** Claims of this action so far, the one finishing now included. */
  attempts: number;
  approvedAt: Date;
  now: Date;
};

/** The bound that was reached, as facts kept on the audit row. */
export type BoundReached = {
  limit: "attempts" | "time";
  attempts: number;
  elapsedSeconds: number;
  maxAttempts: number;
  maxSeconds: number;
};

/**
 * The default bound of a provider's actions, from the longest run its documentation allows (or the
 * one docs/providers.md assumes where it states none): twice that, because queueing comes before
 * running and an approval may come late; and as many attempts as that time holds at the shortest
 * wait between two checks, so the attempts only bite when checks come faster than the backoff
 * (throttling with a short Retry-After, claims handed back).
 */
export function defaultActionBound(maxRunSeconds: number, pollBaseSeconds: number): ActionBound {
  const maxSeconds = 2 * maxRunSeconds;
  return { maxSeconds, maxAttempts: attemptsWithin(maxSeconds, pollBaseSeconds) };
}

/** The first attempt and one more for each shortest wait that fits in `maxSeconds`. */
export function attemptsWithin(maxSeconds: number, pollBaseSeconds: number): number {
  return Math.ceil(maxSeconds / Math.max(1, pollBaseSeconds)) + 1;
}

/** Whether scheduling another attempt would go past the bound; null while within it. */
export function boundReached(bound: ActionBound, progress: ActionProgress): BoundReached | null {
  const elapsedSeconds = Math.max(0, Math.floor((progress.now.getTime() - progress.approvedAt.getTime()) / 1000));
  const facts = { attempts: progress.attempts, elapsedSeconds, ...bound };
  if (progress.attempts >= bound.maxAttempts) return { limit: "attempts", ...facts };
  if (elapsedSeconds >= bound.maxSeconds) return { limit: "time", ...facts };
  return null;
}

/** The next attempt, never later than the end of the bound: the last check lands on it, then the case parks. */
export function nextAttemptWithinBound(next: Date, approvedAt: Date, bound: ActionBound): Date {
  return new Date(Math.min(next.getTime(), approvedAt.getTime() + bound.maxSeconds * 1000));
}

const ACTION_WORDS: Record<RecoveryActionKind, { done: string; again: string }> = {
  resume_poll: { done: "status checks", again: "approve another round of status checks" },
  retry_delivery: { done: "delivery attempts", again: "approve another delivery attempt" },
};

function duration(seconds: number): string {
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 2 * 3600) return `${Math.round(seconds / 60)} min`;
  return `${Math.floor(seconds / 3600)} h ${Math.round((seconds % 3600) / 60)} min`;
}

/**
 * Why the action stopped, and what a person may do next, in words (rule 13: every open case has a
 * next step). The next steps are the stage's own: its recovery action again, with a new bound, or
 * an escalation; a failure is never assumed from a job that is merely slow.
 */
export function boundEvidence(
  kind: RecoveryActionKind,
  stage: Stage,
  reached: BoundReached,
  lastAnswer: string,
): string {
  const words = ACTION_WORDS[kind];
  const why =
    reached.limit === "attempts"
      ? `its ${reached.maxAttempts} attempts are used up`
      : `${duration(reached.maxSeconds)} have passed since it was approved`;
  const again = permittedRecoveryAction(stage) === kind ? `${words.again} (a new bound) or escalate` : "escalate";
  const done = `${words.done.charAt(0).toUpperCase()}${words.done.slice(1)}`;
  return `${done} stopped: ${why} (${reached.attempts} attempts over ${duration(reached.elapsedSeconds)}), and the last answer was "${lastAnswer}"; every check is kept as evidence. A reviewer decides: ${again}`;
}
