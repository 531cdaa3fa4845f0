import type { CaseSnapshot } from "./case-commands";
import { CASE_STATES, type CaseState, STAGES, type Stage } from "./stages";
import { decide } from "./transitions";

export type EscalationReason = "submit_deadline_passed" | "retry_deadline_passed";

/** An uncertain submission's deadline is the producer's last moment to submit; later ones are retry deadlines. */
export function escalationReason(stage: Stage): EscalationReason {
  return stage === "submission_uncertain" ? "submit_deadline_passed" : "retry_deadline_passed";
}

export function isOverdue(deadline: Date | null, now: Date): boolean {
  return deadline !== null && deadline.getTime() < now.getTime();
}

export function escalationEvidence(stage: Stage, deadline: Date): string {
  return `${escalationReason(stage)} at ${deadline.toISOString()}`;
}

/**
 * The (stage, state) pairs the decision lets the sweep escalate, read off `decide` itself so the
 * sweep's set-based statement can never pick a case the decision would refuse.
 */
export function escalatableSnapshots(): Array<{ stage: Stage; state: CaseState; reason: EscalationReason }> {
  return STAGES.flatMap((stage) =>
    CASE_STATES.flatMap((state) => {
      const from: CaseSnapshot = { stage, state, providerJobId: null, escalated: false };
      const decision = decide(from, { type: "escalate_overdue", evidence: escalationReason(stage) });
      return decision.ok ? [{ stage, state, reason: escalationReason(stage) }] : [];
    }),
  );
}

/**
 * The moment an uncertain submission's wait is over: "no job exists" may be recorded from then on,
 * and a case still undecided after it is overdue (decision 061). A send permit's park has the
 * settling period in its deadline already (decision 036); a producer's own deadline does not.
 */
export function settledDeadline(facts: {
  deadline: Date;
  deadlineIncludesSettling: boolean;
  settlingSeconds: number;
}): Date {
  const settling = facts.deadlineIncludesSettling ? 0 : facts.settlingSeconds;
  return new Date(facts.deadline.getTime() + settling * 1000);
}
