import { DomainError } from "./errors";
import { isNonBlankText, normaliseEvidence } from "./evidence";
import type { CaseState, Stage } from "./stages";

export interface CaseSnapshot {
  stage: Stage;
  state: CaseState;
  providerJobId: string | null;
  /**
   * The provider no longer has this job's outputs, so a copy cannot succeed. Absent (never false)
   * while unknown, so snapshots of cases without the fact read as they always did.
   */
  outputsUnavailable?: true;
  /** Whether the deadline sweep has escalated this episode already (a flag, not a state). */
  escalated?: boolean;
  /**
   * The episode's last status check found the job unknown to the provider (`futileRepeat` reason
   * `job_unknown`, decision 068): a finding the service reads from the recovery log for the decision,
   * never stored on the case, and absent (never false) when not found.
   */
  jobUnknown?: true;
}

// `action` is a plain string on purpose: requests such as "submit_again" arrive from outside
// and must reach the decision function to be refused with a reason, not vanish at a type cast.
export type CaseCommand =
  | { type: "reconcile_attach"; providerJobId: string; evidence: string }
  | { type: "reconcile_no_job"; evidence: string }
  | { type: "approve"; action: string; evidence: string }
  | { type: "reject"; evidence: string }
  | { type: "escalate"; evidence: string }
  | { type: "add_note"; text: string }
  | { type: "assign"; assigneeId: string | null }
  | { type: "accept_failure"; evidence: string }
  | { type: "claim" }
  | { type: "finish_resolved" }
  | { type: "finish_unresolved"; evidence: string }
  | { type: "move_stage"; stage: Stage; evidence: string }
  /** The provider's own signed word (a verified webhook) that a parked job finished. */
  | { type: "observe_outcome"; stage: Stage; evidence: string }
  | { type: "rescue_lease" }
  | { type: "reschedule"; evidence: string }
  | { type: "release_claim" }
  | { type: "reopen"; stage: Stage; providerJobId: string | null }
  | { type: "request_replacement"; evidence: string }
  | { type: "close_for_replacement"; evidence: string }
  | { type: "park_poison"; evidence: string }
  | { type: "mark_outputs_unavailable"; evidence: string }
  | { type: "accept_outputs_lost"; evidence: string }
  | { type: "escalate_overdue"; evidence: string }
  | { type: "return_to_reconciliation"; evidence: string };

export type CaseCommandType = CaseCommand["type"];

export const CASE_COMMAND_TYPES = [
  "reconcile_attach",
  "reconcile_no_job",
  "approve",
  "reject",
  "escalate",
  "add_note",
  "assign",
  "accept_failure",
  "claim",
  "finish_resolved",
  "finish_unresolved",
  "move_stage",
  "observe_outcome",
  "rescue_lease",
  "reschedule",
  "release_claim",
  "reopen",
  "request_replacement",
  "close_for_replacement",
  "park_poison",
  "mark_outputs_unavailable",
  "accept_outputs_lost",
  "escalate_overdue",
  "return_to_reconciliation",
] as const satisfies readonly CaseCommandType[];

export const AUDIT_KINDS = [
  "reconciled_job_found",
  "reconciled_no_job",
  "approved",
  "rejected",
  "escalated",
  "note_added",
  "assigned",
  "failure_accepted",
  "claimed",
  "recovery_succeeded",
  "recovery_unresolved",
  "completion_observed",
  "generation_failure_observed",
  "lease_rescued",
  "check_rescheduled",
  "claim_released",
  "reopened",
  "replacement_requested",
  "replacement_authorized",
  "poison_parked",
  "outputs_unavailable_observed",
  "outputs_loss_accepted",
  "deadline_escalated",
  "returned_to_reconciliation",
] as const;
export type AuditKind = (typeof AUDIT_KINDS)[number];

/** Checks what the command itself carries; whether the case allows it is decided elsewhere. */
export function checkCommandInput(command: CaseCommand): DomainError | null {
  switch (command.type) {
    case "reconcile_attach":
      if (!isNonBlankText(command.providerJobId)) {
        return new DomainError("provider_job_id_required", "attach needs the discovered job ID");
      }
      return evidenceProblem(command.evidence);
    case "reconcile_no_job":
    case "approve":
    case "reject":
    case "escalate":
    case "accept_failure":
    case "finish_unresolved":
    case "move_stage":
    case "observe_outcome":
    case "reschedule":
    case "request_replacement":
    case "close_for_replacement":
    case "park_poison":
    case "mark_outputs_unavailable":
    case "accept_outputs_lost":
    case "escalate_overdue":
    case "return_to_reconciliation":
      return evidenceProblem(command.evidence);
    case "add_note":
      return evidenceProblem(command.text, "text");
    case "assign":
      if (command.assigneeId !== null && !isNonBlankText(command.assigneeId)) {
        return new DomainError("invalid_input", "assigneeId must be a user ID or null");
      }
      return null;
    default:
      return null;
  }
}

function evidenceProblem(value: unknown, field?: string): DomainError | null {
  const result = normaliseEvidence(value, field);
  return result.ok ? null : result.error;
}
