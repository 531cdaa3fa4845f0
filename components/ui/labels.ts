import type { BulkVerb } from "@/lib/domain/bulk-verbs";
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

/**
 * The decisions a case page offers, as a reviewer reads them: a name, and one line on what happens
 * (approve is named by the recovery it would queue), and the words on the button that confirms it.
 */
export type DecisionChoice =
  | "reconcile_attach"
  | "reconcile_no_job"
  | "resume_poll"
  | "retry_delivery"
  | "accept_failure"
  | "accept_outputs_lost"
  | "request_replacement"
  | "escalate";

export const DECISION_LABEL: Record<DecisionChoice, { label: string; explains: string; confirm: string }> = {
  reconcile_attach: {
    label: "Attach the provider job you found",
    explains: "The case becomes a job to check — never buys a new video.",
    confirm: "Attach job",
  },
  reconcile_no_job: {
    label: "Record that no job exists",
    explains: "The provider never took the request: the case becomes a failed generation.",
    confirm: "Record no job",
  },
  resume_poll: {
    label: "Resume status checks",
    explains: "The worker asks the provider how the job stands — never buys a new video.",
    confirm: "Approve status checks",
  },
  retry_delivery: {
    label: "Retry copying the video",
    explains: "The worker downloads and verifies the finished outputs again — never buys a new video.",
    confirm: "Approve copying",
  },
  accept_failure: {
    label: "Accept the failure",
    explains: "Closes the case as failed; finance decides what happens to the money held.",
    confirm: "Accept failure",
  },
  accept_outputs_lost: {
    label: "Accept that the outputs are lost",
    explains: "The provider deleted the outputs before a copy succeeded; closes the case, the hold stays for finance.",
    confirm: "Accept lost outputs",
  },
  request_replacement: {
    label: "Request a replacement generation",
    explains: "Asks finance for one new paid generation — a finance colleague (not you) must authorise it.",
    confirm: "Request replacement",
  },
  escalate: {
    label: "Escalate",
    explains: "Marks the case for someone more senior; nothing runs and the money stays held.",
    confirm: "Escalate",
  },
};

/** The queue's bulk verbs as the bulk bar names them, with one line on what each does to every case. */
export const BULK_VERB_LABEL: Record<BulkVerb, { label: string; explains: string; confirm: string }> = {
  approve: {
    label: "Approve each case's own recovery",
    explains: "Status checks for polling cases, copying for delivery cases — never buys a new video.",
    confirm: "Approve",
  },
  reject: {
    label: "Reject (no recovery now)",
    explains: "Records that nothing should run for now; the cases stay parked and the money stays held.",
    confirm: "Reject",
  },
  escalate: DECISION_LABEL.escalate,
  assign: {
    label: "Assign to a reviewer",
    explains: "Gives the open cases to one reviewer (or takes them back).",
    confirm: "Assign",
  },
  note: { label: "Add a note", explains: "Adds the same note to each case's timeline.", confirm: "Add note to" },
  accept_failure: DECISION_LABEL.accept_failure,
};

/** A stored stage or state in words; a name this console does not know yet is shown as stored. */
export const stageLabel = (stage: string): string => STAGE_LABEL[stage as Stage]?.label ?? stage;
export const stateLabel = (state: string): string => STATE_LABEL[state as CaseState]?.label ?? state;
