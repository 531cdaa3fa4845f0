import { type AuditKind, type CaseCommand, type CaseSnapshot, checkCommandInput } from "./case-commands";
import { DomainError, type DomainErrorCode } from "./errors";
import { type CaseState, checkStageFacts, permittedRecoveryAction, type Stage } from "./stages";

export type Decision =
  | { ok: true; next: CaseSnapshot; auditKind: AuditKind; changesState: boolean }
  | { ok: false; error: DomainError };

export function isOpen(state: CaseState): boolean {
  return state !== "resolved";
}

export function isTerminal(state: CaseState): boolean {
  return state === "resolved";
}

/** Mirrors the `claim` rule so a queue query and the decision never disagree. */
export function canBeClaimed(snapshot: Pick<CaseSnapshot, "stage" | "state">): boolean {
  return snapshot.state === "ready" && permittedRecoveryAction(snapshot.stage) !== null;
}

/**
 * Stages the worker may move a claimed case to. Only a status check learns something that
 * changes the stage; a failed delivery stays a delivery problem (finish_unresolved).
 */
const WORKER_STAGE_MOVES: Readonly<Record<Stage, readonly Stage[]>> = {
  submission_uncertain: [],
  polling: ["delivery", "generation_failed"],
  delivery: [],
  generation_failed: [],
};

function refuse(code: DomainErrorCode, message: string, details?: Record<string, unknown>): Decision {
  return { ok: false, error: new DomainError(code, message, details) };
}

function to(
  from: CaseSnapshot,
  auditKind: AuditKind,
  changes: Partial<Omit<CaseSnapshot, "outputsUnavailable">> & { outputsUnavailable?: boolean } = {},
): Decision {
  // The finding about the last check describes the case as it was decided on, not what it becomes.
  const { outputsUnavailable, jobUnknown: _finding, ...rest } = { ...from, ...changes };
  const next: CaseSnapshot = outputsUnavailable ? { ...rest, outputsUnavailable: true } : rest;
  const changesState =
    next.stage !== from.stage ||
    next.state !== from.state ||
    next.providerJobId !== from.providerJobId ||
    next.outputsUnavailable !== from.outputsUnavailable;
  return { ok: true, next, auditKind, changesState };
}

/**
 * A completed job whose outputs the provider has deleted: the charge was made, a copy cannot
 * succeed, so the case needs a decision other than retrying the copy.
 */
export function hasLostOutputs(snapshot: Pick<CaseSnapshot, "stage" | "outputsUnavailable">): boolean {
  return snapshot.stage === "delivery" && snapshot.outputsUnavailable === true;
}

/** The cases a replacement may answer: a proven failure, or a finished job whose outputs are gone. */
function replaceable(from: CaseSnapshot): boolean {
  return from.stage === "generation_failed" || hasLostOutputs(from);
}

function wrongState(from: CaseSnapshot, type: string, expected: readonly CaseState[]): Decision {
  return refuse("illegal_transition", `${type} is not allowed while ${from.state}`, {
    command: type,
    state: from.state,
    expected,
  });
}

/**
 * Which cases are reconciled (DESIGN section 3, decision 068): an uncertain submission, and a job to
 * check whose last status check the provider answered "not found" (`jobUnknown`), since checking that
 * job again cannot help. Such a job is replaced by a different one or found never to exist; attaching
 * the very job the provider does not know would only repeat the check.
 */
function reconcileRefusal(
  from: CaseSnapshot,
  command: Extract<CaseCommand, { type: "reconcile_attach" | "reconcile_no_job" }>,
): Decision | null {
  if (from.stage === "submission_uncertain") return null;
  if (from.stage !== "polling" || from.jobUnknown !== true) {
    return refuse(
      "illegal_transition",
      "only an uncertain submission, or a job the provider does not know, is reconciled",
      { command: command.type, stage: from.stage },
    );
  }
  if (command.type === "reconcile_attach" && command.providerJobId.trim() === from.providerJobId) {
    return refuse("illegal_transition", "the provider does not know this job: attach a different one", {
      command: command.type,
      stage: from.stage,
    });
  }
  return null;
}

/**
 * Pure: the same snapshot and command always give the same answer, and nothing is mutated.
 * Input is validated before the case is consulted, so a malformed request is reported as such
 * whatever the case looks like. The caller applies `next` with a compare-and-set on the version.
 */
export function decide(from: CaseSnapshot, command: CaseCommand): Decision {
  const inputProblem = checkCommandInput(command);
  if (inputProblem) return { ok: false, error: inputProblem };
  const { stage, state } = from;

  switch (command.type) {
    case "reconcile_attach":
    case "reconcile_no_job": {
      if (state !== "parked") return wrongState(from, command.type, ["parked"]);
      const refusal = reconcileRefusal(from, command);
      if (refusal) return refusal;
      return command.type === "reconcile_attach"
        ? to(from, "reconciled_job_found", { stage: "polling", providerJobId: command.providerJobId })
        : to(from, "reconciled_no_job", { stage: "generation_failed", providerJobId: null });
    }

    case "approve": {
      if (state !== "parked") return wrongState(from, command.type, ["parked"]);
      if (stage === "submission_uncertain") {
        return refuse("reconciliation_required", "reconcile the submission before any action", {
          stage,
          requested: command.action,
        });
      }
      const permitted = permittedRecoveryAction(stage);
      if (permitted === null || command.action !== permitted) {
        return refuse("action_not_permitted_for_stage", `${stage} does not permit this action`, {
          stage,
          requested: command.action,
          permitted,
        });
      }
      if (hasLostOutputs(from)) {
        return refuse("outputs_unavailable", "the provider no longer has the outputs; a copy cannot succeed", {
          stage,
          requested: command.action,
        });
      }
      return to(from, "approved", { state: "ready" });
    }

    case "reject":
    case "escalate":
      if (state !== "parked") return wrongState(from, command.type, ["parked"]);
      return to(from, command.type === "reject" ? "rejected" : "escalated");

    case "add_note":
      return to(from, "note_added");

    case "assign":
      if (state === "resolved") return wrongState(from, command.type, ["parked", "ready", "claimed"]);
      return to(from, "assigned");

    case "accept_failure":
      if (state !== "parked") return wrongState(from, command.type, ["parked"]);
      if (stage === "submission_uncertain") {
        return refuse("reconciliation_required", "a failure must be proven before it is accepted", {
          stage,
        });
      }
      if (stage !== "generation_failed") {
        return refuse("action_not_permitted_for_stage", `${stage} has no failure to accept`, {
          stage,
        });
      }
      return to(from, "failure_accepted", { state: "resolved" });

    case "claim":
      if (state !== "ready") return wrongState(from, command.type, ["ready"]);
      if (permittedRecoveryAction(stage) === null) {
        return refuse("action_not_permitted_for_stage", `${stage} has no recovery action`, {
          stage,
        });
      }
      return to(from, "claimed", { state: "claimed" });

    case "finish_resolved":
      if (state !== "claimed") return wrongState(from, command.type, ["claimed"]);
      // A status check that succeeds only learns about the job; the outcome is verified when
      // the asset is stored and the notification delivered, which is the delivery stage's work.
      if (stage !== "delivery") {
        return refuse("illegal_transition", "only a verified delivery resolves a case", { stage });
      }
      return to(from, "recovery_succeeded", { state: "resolved" });

    case "finish_unresolved":
      if (state !== "claimed") return wrongState(from, command.type, ["claimed"]);
      return to(from, "recovery_unresolved", { state: "parked" });

    case "move_stage":
      if (state !== "claimed") return wrongState(from, command.type, ["claimed"]);
      if (!WORKER_STAGE_MOVES[stage].includes(command.stage)) {
        return refuse("illegal_transition", `the worker cannot move ${stage} to ${command.stage}`, {
          from: stage,
          to: command.stage,
        });
      }
      // A finished job keeps the claim: the reviewer's resume_poll approval already covers
      // fetching and delivering the finished video of the same job, and nothing new is bought,
      // so the worker carries on with delivery within the same claim.
      if (command.stage === "delivery") {
        return to(from, "completion_observed", { stage: "delivery" });
      }
      // A failed job ends the claim: its next step (accepting the failure or a replacement)
      // needs its own reviewed decision.
      return to(from, "generation_failure_observed", { stage: command.stage, state: "parked" });

    case "observe_outcome":
      // A parked job whose completion or failure the provider announced (a verified webhook): the
      // case converges without a claim. A case a worker holds or is about to hold is left to that
      // worker's own status check, so the two never decide the same case twice.
      if (state !== "parked") return wrongState(from, command.type, ["parked"]);
      if (!WORKER_STAGE_MOVES[stage].includes(command.stage)) {
        return refuse("illegal_transition", `a provider's word cannot move ${stage} to ${command.stage}`, {
          from: stage,
          to: command.stage,
        });
      }
      return to(from, command.stage === "delivery" ? "completion_observed" : "generation_failure_observed", {
        stage: command.stage,
      });

    case "rescue_lease":
      if (state !== "claimed") return wrongState(from, command.type, ["claimed"]);
      if (permittedRecoveryAction(stage) === null) {
        return refuse("action_not_permitted_for_stage", `${stage} has no recovery action`, {
          stage,
        });
      }
      return to(from, "lease_rescued", { state: "ready" });

    // A status check that says "still running" resolves nothing: the action goes back to ready
    // for a later check, still covered by the same approval. A delivery's read that the provider
    // throttled goes back the same way, to be read again when the provider allows.
    case "reschedule":
      if (state !== "claimed") return wrongState(from, command.type, ["claimed"]);
      if (stage !== "polling" && stage !== "delivery") {
        return refuse("action_not_permitted_for_stage", `${stage} has no status check to reschedule`, {
          stage,
        });
      }
      return to(from, "check_rescheduled", { state: "ready" });

    // A worker that runs out of its time budget hands the action back before its lease expires,
    // instead of leaving it for the lease rescue; the refusals are the same as rescue_lease.
    case "release_claim":
      if (state !== "claimed") return wrongState(from, command.type, ["claimed"]);
      if (permittedRecoveryAction(stage) === null) {
        return refuse("action_not_permitted_for_stage", `${stage} has no recovery action`, {
          stage,
        });
      }
      return to(from, "claim_released", { state: "ready" });

    case "reopen": {
      if (state !== "resolved") return wrongState(from, command.type, ["resolved"]);
      const facts = checkStageFacts(command.stage, command.providerJobId);
      if (!facts.ok) return facts;
      // A new episode is a new attempt or stage: what was known about the old outputs no longer applies.
      return to(from, "reopened", {
        stage: command.stage,
        state: "parked",
        providerJobId: command.providerJobId,
        outputsUnavailable: false,
      });
    }

    case "request_replacement":
      if (state !== "parked") return wrongState(from, command.type, ["parked"]);
      if (!replaceable(from)) {
        return refuse("replacement_not_allowed", "a replacement needs a proven failure or lost outputs", { stage });
      }
      return to(from, "replacement_requested");

    // Authorising a replacement hands the operation to a new attempt, so this episode of the
    // case ends; a later registration of the replacement attempt opens a new episode.
    case "close_for_replacement":
      if (state !== "parked") return wrongState(from, command.type, ["parked"]);
      if (!replaceable(from)) {
        return refuse("replacement_not_allowed", "only a proven failure or lost outputs is closed for a replacement", {
          stage,
        });
      }
      return to(from, "replacement_authorized", { state: "resolved" });

    // An action whose claims keep ending without a finish (rule 13) stops being retried: its case
    // goes back to a reviewer with the failures as evidence. It is found either waiting for its
    // next claim or as a claim whose lease ran out, hence both states.
    case "park_poison":
      if (state !== "ready" && state !== "claimed") return wrongState(from, command.type, ["ready", "claimed"]);
      if (permittedRecoveryAction(stage) === null) {
        return refuse("action_not_permitted_for_stage", `${stage} has no recovery action`, { stage });
      }
      return to(from, "poison_parked", { state: "parked" });
    // The copy failed because the provider deleted the outputs (retention passed): retrying cannot
    // help, so the claim ends and the case waits for one of the decisions lost outputs permit.
    case "mark_outputs_unavailable":
      if (state !== "claimed") return wrongState(from, command.type, ["claimed"]);
      if (stage !== "delivery") {
        return refuse("illegal_transition", "only a delivery can find its outputs gone", { stage });
      }
      return to(from, "outputs_unavailable_observed", { state: "parked", outputsUnavailable: true });

    // The charge was made and the video cannot be fetched: the case closes, the hold stays for finance.
    case "accept_outputs_lost":
      if (state !== "parked") return wrongState(from, command.type, ["parked"]);
      if (!hasLostOutputs(from)) {
        return refuse("action_not_permitted_for_stage", "no lost outputs to accept", { stage });
      }
      return to(from, "outputs_loss_accepted", { state: "resolved" });
    // Rule 6: a passed deadline only raises a flag for people; the case keeps its state, its
    // stage and its money, so the flag is not part of `next` and nothing is compare-and-set.
    case "escalate_overdue":
      if (state === "resolved") return wrongState(from, command.type, ["parked", "ready", "claimed"]);
      if (from.escalated) return refuse("illegal_transition", "this episode is escalated already", { state });
      return to(from, "deadline_escalated");
    // A "no job exists" verdict that a fresh provider check contradicts: the case is an uncertain
    // submission again, so the job that turned up can be confirmed (or not) like any other.
    case "return_to_reconciliation":
      if (state !== "parked") return wrongState(from, command.type, ["parked"]);
      if (stage !== "generation_failed") {
        return refuse("illegal_transition", "only a failure verdict goes back to reconciliation", { stage });
      }
      return to(from, "returned_to_reconciliation", { stage: "submission_uncertain", providerJobId: null });

    default: {
      const unknown: { type?: unknown } = command;
      return refuse("illegal_transition", "unknown command", { command: String(unknown.type) });
    }
  }
}
