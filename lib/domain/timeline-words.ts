import { formatMicros } from "./money";

/** One audit event as the timeline shows it: a sentence, and the text a person wrote or the worker found. */
export type EventWords = { sentence: string; said: string | null };

type Facts = Record<string, unknown>;
const text = (value: unknown) => (typeof value === "string" && value.trim() !== "" ? value : null);
const STAGE_WORDS: Record<string, string> = {
  submission_uncertain: "an uncertain submission",
  polling: "a job to check",
  delivery: "a delivery",
  generation_failed: "a failed generation",
};
export const ACTION_WORDS: Record<string, string> = {
  resume_poll: "resume status checks",
  retry_delivery: "retry copying the video",
};

function money(facts: Facts): string {
  const micros = Number(facts.amountMicros ?? facts.settledMicros);
  const currency = text(facts.currency);
  if (!Number.isFinite(micros)) return "";
  return currency ? formatMicros(micros, currency) : `${micros} micro-units`;
}

// Changes to people, tokens and settings: audited on the system chain, not on a case's timeline.
const SETTINGS_SENTENCES: Record<string, () => string> = {
  user_created: () => "Person added",
  user_roles_changed: () => "Person's roles changed",
  user_producers_changed: () => "Person's producers changed",
  user_password_reset: () => "Person's password reset",
  user_deactivated: () => "Person deactivated",
  user_reactivated: () => "Person reactivated",
  user_sessions_ended: () => "Person signed out everywhere",
  user_identity_linked: () => "Single sign-on identity linked",
  token_created: () => "Access token created",
  token_revoked: () => "Access token revoked",
  console_settings_updated: () => "Console settings changed",
  retention_policy_updated: () => "Retention policy changed",
  price_created: () => "Provider price added",
  price_updated: () => "Provider price changed",
  price_deleted: () => "Provider price removed",
  provider_setting_updated: () => "Provider setting changed",
  provider_pace_updated: () => "Provider pace changed",
  provider_breaker_tripped: () => "Provider's breaker stopped new sends",
  provider_breaker_updated: () => "Provider's breaker settings changed",
  provider_breaker_resumed: () => "Provider's breaker resumed sends",
  scope_paused: () => "Recoveries and sends paused",
  scope_resumed: () => "Recoveries and sends resumed",
  spend_limit_set: () => "Spend limit set",
  spend_limit_cleared: () => "Spend limit cleared",
  alert_rule_created: () => "Alert rule added",
  alert_rule_updated: () => "Alert rule changed",
  alert_destination_created: () => "Alert destination added",
  alert_destination_updated: () => "Alert destination changed",
  endpoint_created: () => "Notification endpoint added",
  endpoint_updated: () => "Notification endpoint changed",
  endpoint_disabled: () => "Notification endpoint turned off",
  endpoint_enabled: () => "Notification endpoint turned on",
  endpoint_secret_rotated: () => "Notification endpoint's signing secret rotated",
  bulk_job_started: () => "Bulk action started",
  bulk_job_cancelled: () => "Bulk action cancelled",
  bulk_job_finished: () => "Bulk action finished",
  usage_imported: () => "Provider usage imported",
  provider_jobs_swept: () => "Provider's job list swept for jobs no operation owns",
  unexplained_charge_attached: () => "Unexplained provider job attached to an operation",
  unexplained_charge_known_outside: () => "Provider charge explained as made outside the product",
  provider_job_moved: () => "Provider job moved to the send that made it",
};

const SENTENCES: Record<string, (after: Facts, before: Facts, evidence: Facts) => string> = {
  parked: (a) => `Parked as ${STAGE_WORDS[String(a.stage)] ?? String(a.stage)}`,
  hold_reserved: (a) => `${money(a)} put on hold (${String(a.holdId)})`.trim(),
  hold_settled: (_a, b) => `Hold ${String(b.holdId)} settled`,
  hold_released: (_a, b) => `Hold ${String(b.holdId)} released`,
  hold_written_off: (_a, b) => `Hold ${String(b.holdId)} written off while its send's outcome was unknown`,
  hold_decided_before_case: (a, b) =>
    `Hold ${String(b.holdId)} was ${a.writtenOff ? "written off" : "released"} by finance while its send was in flight`,
  charged_after_release: (a) => `Charged after release: ${money(a)} on hold ${String(a.holdId)}`.trim(),
  charge_corrected: (a) =>
    a.jobMovedAway
      ? `Charge corrected back to ${money({ amountMicros: a.realMicros, currency: a.currency })} on hold ${String(a.holdId)}: its provider job was another send's`
      : `Charge corrected to the provider's ${money({ amountMicros: a.realMicros, currency: a.currency })} on hold ${String(a.holdId)}`,
  late_charge_acknowledged: (a) => `Finance acknowledged the charge after release on hold ${String(a.holdId)}`,
  reconciled_job_found: (a, _b, e) =>
    `Provider job ${String(e.providerJobId ?? a.providerJobId ?? "")} attached`.trim(),
  reconciled_no_job: () => "Recorded that no provider job exists",
  approved: (_a, _b, e) => `Approved: ${ACTION_WORDS[String(e.action)] ?? "the recovery"}`,
  rejected: () => "Approval refused",
  escalated: () => "Escalated",
  deadline_escalated: () => "Escalated: its deadline passed",
  note_added: () => "Note added",
  notification_resent: (_a, _b, e) => {
    const n = Array.isArray(e.webhookIds) ? e.webhookIds.length : 0;
    return `Producer's given-up ${n === 1 ? "notification" : `notifications (${n})`} sent again`;
  },
  notification_requeued: (_a, _b, e) =>
    `Producer's notification put back in the queue${e.wasDelivered ? " (it had been delivered)" : ""}`,
  // The assignee is in the evidence (the snapshot carries stage, state and job only), named since decision 057.
  assigned: (a, _b, e) =>
    (e.assigneeId ?? a.assigneeId)
      ? text(e.assigneeName)
        ? `Assigned to ${e.assigneeName}`
        : "Assigned"
      : "Unassigned",
  failure_accepted: () => "The failure was accepted",
  outputs_loss_accepted: () => "The loss of the outputs was accepted",
  claimed: (_a, _b, e) => `A worker took it${e.workerId ? ` (${String(e.workerId)})` : ""}`,
  lease_rescued: () => "A worker's lease ran out: ready again",
  claim_released: () => "The worker handed it back before starting",
  check_rescheduled: () => "Next status check scheduled",
  recovery_succeeded: () => "Recovered",
  // Rule 19: an action that reached its bound stopped on purpose; it did not fail.
  recovery_unresolved: (_a, _b, e) =>
    e.bound ? "Stopped at the approval's limit: back to a reviewer" : "The recovery attempt failed",
  completion_observed: () => "The provider reports the job completed",
  generation_failure_observed: () => "The provider reports the generation failed",
  outputs_unavailable_observed: () => "The provider no longer has the outputs",
  poison_parked: () => "Parked after failing again and again",
  reopened: (a) => `Reopened as ${STAGE_WORDS[String(a.stage)] ?? "a new episode"}`,
  returned_to_reconciliation: () => "Back to reconciliation: the provider showed a job after all",
  reconciliation_suggested: () => "The worker suggested matching provider jobs",
  replacement_requested: () => "A replacement was requested",
  replacement_authorized: () => "Finance authorised a replacement",
  replacement_declined: () => "Finance declined the replacement",
  replacement_expired: () => "The replacement request expired",
  replacement_withdrawn: () => "The replacement was withdrawn",
  replacement_request_closed: () => "The replacement request was closed",
  replacement_acknowledged: () => "The producer acknowledged the replacement",
  suspected_duplicate_flagged: () => "Suspected duplicate: the original job turned up",
  // Decision 072: the evidence's text names another producer's operation only within one producer.
  output_duplicate_flagged: (_a, _b, e) =>
    typeof e.text === "string" ? e.text : "Suspected paid duplicate: the same video was delivered twice",
  // Rule 17: the flag a reviewer sees on both operations whose claims on one job met.
  job_claim_contested: (a, _b, e) =>
    `Flagged: another operation's claim on provider job ${String(e.providerJobId ?? "")} met this one's (${String(a.outcome ?? "contested").replaceAll("_", " ")})`,
  provider_job_disowned: (_a, _b, e) =>
    `Provider job ${String(e.providerJobId ?? "")} taken back: the provider's evidence shows it is another operation's`,
  reconciliation_suggested_by_webhook: () => "A provider's webhook suggested a matching job",
  reconciliation_suggestion_confirmed: () => "A reviewer confirmed a suggested provider job",
  permit_issued: () => "A send permit was issued",
  case_redacted: () => "Customer text and videos removed by the retention policy",
  operation_redacted: () => "The operation's customer text removed by the retention policy",
  ...SETTINGS_SENTENCES,
  evidence_exported: (_a, _b, e) =>
    `Evidence packet exported${typeof e.packetId === "string" ? ` (${e.packetId.slice(0, 8)})` : ""}`,
  queue_exported: (_a, _b, e) =>
    `Queue view exported as CSV${typeof e.rows === "number" ? ` (${e.rows} ${e.rows === 1 ? "case" : "cases"}${e.truncated === true ? ", the first of more" : ""})` : ""}`,
};

/** Whether the timeline has a sentence of its own for this kind of event (tests/unit/code-words.test.ts). */
export const hasWordsFor = (kind: string): boolean => Object.hasOwn(SENTENCES, kind);

/** The sentence for an event; an unknown kind reads as its name in words. */
export function describeEvent(event: { kind: string; before: unknown; after: unknown; evidence: unknown }): EventWords {
  const facts = (value: unknown): Facts => (value && typeof value === "object" ? (value as Facts) : {});
  const evidence = facts(event.evidence);
  const sentence =
    SENTENCES[event.kind]?.(facts(event.after), facts(event.before), evidence) ??
    `${event.kind.charAt(0).toUpperCase()}${event.kind.slice(1).replaceAll("_", " ")}`;
  return {
    sentence,
    said: text(evidence.text) ?? text(evidence.evidence) ?? text(evidence.note) ?? text(evidence.reason),
  };
}
