import type { CaseState, Stage } from "@/lib/domain/stages";

/** What each stage and state is called on screen, with the line that explains it (shown on hover). */
export const STAGE_LABEL: Record<Stage, { label: string; explains: string }> = {
  submission_uncertain: {
    label: "Uncertain submission",
    explains: "The create call's answer was lost: nobody knows yet whether the provider has a job.",
  },
  polling: { label: "Job to check", explains: "The provider job is known; its status must be checked." },
  delivery: { label: "Delivery", explains: "The job finished; its video must be copied and verified." },
  generation_failed: {
    label: "Generation failed",
    explains: "The provider reports the job failed, or a reviewer found that no job exists.",
  },
};

export const STATE_LABEL: Record<CaseState, { label: string; explains: string }> = {
  parked: { label: "Needs a decision", explains: "Parked: nothing happens until someone decides." },
  ready: { label: "Queued", explains: "Approved: the worker will run it." },
  claimed: { label: "Running", explains: "A worker holds it under a lease now." },
  resolved: { label: "Resolved", explains: "This episode is over." },
};

/** A stored stage or state in words; a name this console does not know yet is shown as stored. */
export const stageLabel = (stage: string): string => STAGE_LABEL[stage as Stage]?.label ?? stage;
export const stateLabel = (state: string): string => STATE_LABEL[state as CaseState]?.label ?? state;
