import { fail, ok, type Result } from "./errors";
import { isNonBlankText } from "./evidence";

export const STAGES = ["submission_uncertain", "polling", "delivery", "generation_failed"] as const;
export type Stage = (typeof STAGES)[number];

export const CASE_STATES = ["parked", "ready", "claimed", "resolved"] as const;
export type CaseState = (typeof CASE_STATES)[number];

export const RECOVERY_ACTION_KINDS = ["resume_poll", "retry_delivery"] as const;
export type RecoveryActionKind = (typeof RECOVERY_ACTION_KINDS)[number];

export function isStage(value: unknown): value is Stage {
  return typeof value === "string" && (STAGES as readonly string[]).includes(value);
}

export function isCaseState(value: unknown): value is CaseState {
  return typeof value === "string" && (CASE_STATES as readonly string[]).includes(value);
}

export function isRecoveryActionKind(value: unknown): value is RecoveryActionKind {
  return typeof value === "string" && (RECOVERY_ACTION_KINDS as readonly string[]).includes(value);
}

/** Only stages where a provider job is known can be recovered without risking a second charge. */
export function requiresProviderJobId(stage: Stage): boolean {
  return stage === "polling" || stage === "delivery";
}

// A switch rather than a lookup table: a table keyed by string would answer for "__proto__"-like
// or unknown input, and a new stage must force a deliberate decision here.
export function permittedRecoveryAction(stage: Stage): RecoveryActionKind | null {
  switch (stage) {
    case "polling":
      return "resume_poll";
    case "delivery":
      return "retry_delivery";
    case "submission_uncertain":
    case "generation_failed":
      return null;
  }
}

export function hasProviderJobId(providerJobId: string | null | undefined): providerJobId is string {
  return isNonBlankText(providerJobId);
}

/**
 * The facts a case carries must agree with its stage: recovering a job needs its ID, and a known
 * ID means the submission is not uncertain any more (it should be parked as polling instead).
 */
export function checkStageFacts(stage: Stage, providerJobId: string | null): Result<void> {
  if (requiresProviderJobId(stage) && !hasProviderJobId(providerJobId)) {
    return fail("provider_job_id_required", `stage ${stage} requires a provider job ID`, { stage });
  }
  if (stage === "submission_uncertain" && providerJobId !== null) {
    return fail("invalid_input", "an uncertain submission cannot carry a provider job ID", {
      stage,
    });
  }
  return ok(undefined);
}
