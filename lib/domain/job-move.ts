// Moving a job from the send that claimed it to the send that made it (decision 084). A shop can
// name another operation's job as its own, and on providers that give no request evidence the
// ownership rule (rule 17) has nothing to refuse the bare claim with: the wrong send's hold is then
// corrected by the other send's charge, and the send that made the job stays charged at its
// reservation. Finance, reading the invoice and asking the shop, moves it. Pure: when a move is refused.

/** What the move is decided on, read under the locks of both attempts. */
export type JobMoveFacts = {
  /** The attempt that records the job now; null when none does (then it is attached, not moved). */
  holderAttemptRef: string | null;
  targetAttemptRef: string;
  /** The job the target attempt records already, if any: one send makes one job. */
  targetJob: string | null;
  targetHasHold: boolean;
  /** The attempt the provider's signed reference fixes the job to (decision 036), if any. */
  boundTo: string | null;
  /** The target's hold was once corrected by a line of this job that then moved away. */
  targetGaveUpJobBefore: boolean;
};

export type JobMoveRefusal = { code: "not_found" | "conflict" | "invalid_request"; message: string };

/** Why the move may not be made, or null. The claim rule then judges the target as any other door does. */
export function jobMoveRefusal(facts: JobMoveFacts, names: { job: string; target: string }): JobMoveRefusal | null {
  if (facts.holderAttemptRef === null)
    return {
      code: "not_found",
      message: `No send records job ${names.job}: attach it from the charges no operation explains instead.`,
    };
  if (facts.holderAttemptRef === facts.targetAttemptRef)
    return { code: "conflict", message: `Attempt ${names.target} already records job ${names.job}.` };
  if (facts.boundTo === facts.holderAttemptRef)
    return {
      code: "conflict",
      message: `The provider's signed reference ties job ${names.job} to the send that records it: it stays there.`,
    };
  if (facts.targetJob !== null)
    return {
      code: "conflict",
      message: `Attempt ${names.target} already has job ${facts.targetJob}: one send makes one job; move that one first.`,
    };
  if (!facts.targetHasHold)
    return {
      code: "invalid_request",
      message: `Attempt ${names.target} holds no money for this job's charge to land on.`,
    };
  if (facts.targetGaveUpJobBefore)
    return {
      code: "conflict",
      message: `Job ${names.job} was moved away from attempt ${names.target} before; it is not moved back.`,
    };
  return null;
}
