import { permittedRecoveryAction, type RecoveryActionKind, type Stage } from "./stages";

/**
 * What the last recovery attempt learnt, as far as repeating it goes: the provider's answer to its
 * last check (an observation kind: `not_found`, `failed`, …) and how the action ended (its outcome).
 */
export type AttemptFinding = {
  kind: RecoveryActionKind;
  failed: boolean;
  /** The kind of the provider's answer to the attempt's last check, when one was recorded. */
  answer: string | null;
  /** The action's recorded outcome (`generation_failed`, `outputs_unavailable`, `unresolved`, …). */
  outcome: string | null;
};

export type FutileRepeatReason = "job_unknown" | "generation_refused" | "outputs_gone";

export type FutileRepeat = { code: "repeat_cannot_help"; reason: FutileRepeatReason; message: string };

/** Why repeating cannot help, in words a person reads (bulk skips, the "try again anyway" note). */
export const FUTILE_REPEAT_WORDS: Readonly<Record<FutileRepeatReason, string>> = {
  job_unknown: "the last status check found that the provider does not know this job; checking again cannot help",
  generation_refused: "the provider refused the generation; asking again gets the same answer",
  outputs_gone: "the provider no longer has the outputs; copying again cannot succeed",
};

function reasonOf(stage: Stage, finding: AttemptFinding): FutileRepeatReason | null {
  if (finding.outcome === "outputs_unavailable") return "outputs_gone";
  if (finding.outcome === "generation_failed" || finding.answer === "failed") return "generation_refused";
  // A status check's "not found" is the provider's word that the job ID names nothing. A delivery's
  // first one is not: a stale replica can say it, and only a second check on a separate claim makes
  // the loss certain (NOT_FOUND_CHECKS_THAT_AGREE in provider-answer.ts), so that repeat can help.
  if (finding.answer === "not_found" && stage === "polling") return "job_unknown";
  return null;
}

/**
 * Whether repeating the stage's recovery cannot help after the last attempt (decision 061): the
 * provider answered, and its answer will not change. Null when nothing failed, when the failure was
 * a transport error, throttling or a bound reached (a later try may well succeed), or when the last
 * attempt was of another kind than the stage's recovery. Pure: the console orders its offer by it
 * and the bulk dry run skips such cases with the message.
 */
export function futileRepeat(stage: Stage, finding: AttemptFinding | null): FutileRepeat | null {
  if (!finding?.failed) return null;
  const recovery = permittedRecoveryAction(stage);
  if (recovery === null || finding.kind !== recovery) return null;
  const reason = reasonOf(stage, finding);
  return reason ? { code: "repeat_cannot_help", reason, message: FUTILE_REPEAT_WORDS[reason] } : null;
}
