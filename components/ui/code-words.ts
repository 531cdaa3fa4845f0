import type { Permission } from "@/lib/domain/roles";
import type { PauseKind } from "@/lib/domain/scope-pauses";
import type { RecoveryActionKind } from "@/lib/domain/stages";
import { DECISION_LABEL } from "./labels";

/**
 * What the console calls the codes it stores, one map per family: a case's outcome, a provider
 * observation, a recovery action's kind, status and outcome, a hold's status, a ledger entry, an
 * attempt's kind, a reviewer's decision and a permission. Stages and states are in labels.ts, audit
 * events in lib/domain/timeline-words.ts. tests/unit/code-words.test.ts walks every family.
 */

/** How a case's episode ended (the case row's `outcome`), shown after its state. */
/** A bulk job's verb (decisions 032 and 065), as the bulk jobs page names it. */
export const BULK_VERB_WORDS: Record<string, string> = {
  approve: "approve",
  reject: "reject",
  escalate: "escalate",
  assign: "assign",
  note: "add a note",
  accept_failure: "accept the failure",
  settle: "settle holds",
  release: "release holds",
};

/** Why a case was escalated (rule 13), as its badge's hover text says it. */
export const ESCALATION_WORDS: Record<string, string> = {
  submit_deadline_passed: "the deadline to submit passed",
  retry_deadline_passed: "the deadline to recover passed",
};

export const CASE_OUTCOME_WORDS: Record<string, string> = {
  recovered: "recovered",
  delivered: "video delivered",
  failure_accepted: "failure accepted",
  outputs_lost: "loss of the outputs accepted",
  replacement_authorized: "replacement authorised",
};

/** What a status check (or a look for the original job) found at the provider. */
export const OBSERVATION_WORDS: Record<string, string> = {
  running: "Still running",
  completed: "Completed",
  failed: "Generation failed",
  not_found: "No such job at the provider",
  unknown: "No answer: could not find out",
  outputs_unavailable: "The outputs are no longer available",
  original_job_check: "Looked for the original job",
};

export const ACTION_KIND_WORDS: Record<RecoveryActionKind, string> = {
  resume_poll: DECISION_LABEL.resume_poll.label,
  retry_delivery: DECISION_LABEL.retry_delivery.label,
};

export const ACTION_STATUS_WORDS: Record<string, string> = {
  ready: "queued",
  claimed: "running",
  succeeded: "succeeded",
  unresolved: "did not resolve",
  superseded: "superseded by a later decision",
};

/** A recovery action's own outcome (the case's is CASE_OUTCOME_WORDS). */
export const ACTION_OUTCOME_WORDS: Record<string, string> = {
  resolved: "resolved",
  delivered: "video delivered",
  unresolved: "not resolved",
  bound_reached: "stopped at the approval's limit",
  outputs_unavailable: "outputs no longer available",
  generation_failed: "generation failed",
  poison: "parked after failing again and again",
};

export const HOLD_STATUS_WORDS: Record<string, string> = {
  held: "held",
  settled: "settled",
  released: "released",
};

export const LEDGER_WORDS: Record<string, string> = {
  reserve: "Reserved",
  settle: "Settled",
  release: "Released",
  overage: "Charged over the hold",
  late_charge: "Charged after release",
  adjustment: "Corrected to the provider's charge",
  outside_charge: "Charged outside the product",
};

export const ATTEMPT_KIND_WORDS: Record<string, string> = {
  original: "original",
  replacement: "replacement",
};

/** A reviewer's recorded decision (decisions.kind): the command or verdict it was. */
export const DECISION_KIND_WORDS: Record<string, string> = {
  approve: "Approved",
  reject: "Rejected",
  escalate: "Escalated",
  reconcile_attach: "Attached the provider job",
  reconcile_no_job: "Recorded that no job exists",
  accept_failure: "Accepted the failure",
  accept_outputs_lost: "Accepted the loss of the outputs",
  request_replacement: "Requested a replacement",
};

/** The profile's "May" list: what each permission lets a person do. */
export const PERMISSION_WORDS: Record<Permission, string> = {
  "case:read": "read cases",
  "usage:import": "import provider usage and settle holds at the provider's charge",
  "case:note": "add notes to cases",
  "case:assign": "assign cases",
  "case:reconcile": "attach a provider job, or record that none exists",
  "case:approve": "approve recoveries",
  "case:accept_failure": "accept failures and lost outputs",
  "case:export_evidence": "export evidence packets",
  "case:view_outputs": "play and download delivered videos",
  "case:notify_producer": "send a producer's given-up notifications again",
  "replacement:request": "request replacement generations",
  "replacement:authorize": "authorise or decline replacement generations",
  "hold:read": "read holds and the ledger",
  "hold:decide": "settle, release or write off holds",
  "spend_limit:set": "set spend limits",
  "pause:set": "pause and resume a provider's, producer's or model's recoveries and sends",
  "admin:users": "manage people and their roles",
  "admin:api_keys": "manage producers' API keys",
  "admin:worker_tokens": "manage worker tokens",
  "admin:settings": "change console, provider, alert and retention settings",
};

export const PAUSE_KIND_WORDS: Record<PauseKind, string> = {
  provider: "provider",
  producer: "producer",
  model: "model",
};

/** A code in its family's words; one this console does not know yet reads as words, never as snake_case. */
export function inWords(family: Record<string, string>, code: string): string {
  return Object.hasOwn(family, code) ? (family[code] as string) : code.replaceAll("_", " ");
}
