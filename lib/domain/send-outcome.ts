import type { PermitStatus } from "./send-permits";
import type { CaseState, Stage } from "./stages";

/** What is known of a hold's send: its permit (if it went out under one) and its case (if it parked). */
export interface SendFacts {
  permit: { status: PermitStatus; parked: boolean } | null;
  /** The case the hold belongs to; `current` says whether the case's present attempt is the hold's. */
  case: { stage: Stage; state: CaseState; current: boolean } | null;
}

/** A hold's send facts from its permit and case rows, as every reader of holds has them. */
export function sendFactsOf(hold: {
  attemptRef: string;
  permit: { status: PermitStatus; caseRef: string | null } | null;
  case: { stage: Stage; state: CaseState; attemptRef: string } | null;
}): SendFacts {
  const { permit, case: kase } = hold;
  return {
    permit: permit ? { status: permit.status, parked: permit.caseRef !== null } : null,
    case: kase ? { stage: kase.stage, state: kase.state, current: kase.attemptRef === hold.attemptRef } : null,
  };
}

/**
 * DESIGN rule 18: whether the provider may still complete (and charge for) a hold's send, and why.
 * Null when the outcome is known: nothing was sent, the provider refused it, it failed, or it
 * completed. Stages follow DESIGN section 3: an uncertain submission may have been accepted, and a
 * polling case names a job nobody has seen finish; delivery and generation_failed are outcomes.
 */
export function unknownSendOutcome(facts: SendFacts): string | null {
  const { permit } = facts;
  if (permit && !permit.parked && (permit.status === "live" || permit.status === "accepted")) {
    return "the send is in flight: its permit was issued and the producer has not reported what it came to";
  }
  // A parked permit (uncertain, or a job to check) speaks through its case from then on: the case
  // moves on (a job attached, "no job exists" confirmed), while the permit keeps its last status.
  const kase = facts.case;
  if (!kase?.current || kase.state === "resolved") return null;
  if (kase.stage === "submission_uncertain")
    return "the case is an uncertain submission: the provider may have the job";
  if (kase.stage === "polling") return "the case's job is still being checked: the provider may complete it";
  return null;
}

/**
 * DESIGN rule 18 the other way: the provider completed the hold's job (its case reached delivery,
 * open or resolved), so the hold is charged: finance settles it with the charge, never releases or writes
 * it off as if nothing were bought. Null when no completion is known.
 */
export function completedSend(facts: SendFacts): string | null {
  const kase = facts.case;
  if (!kase?.current || kase.stage !== "delivery") return null;
  return "the provider completed its job (its case delivered, or is delivering, the outputs): settle it with the charge";
}
