import { isDomainError } from "./domain/errors";

/**
 * The one registry of codes a caller may see, and the one map from code to HTTP status, so the
 * same refusal never surfaces as a 400 in one place and a 409 in another. The pure domain's codes
 * (lib/domain/errors.ts) are a subset of it (decision 044). Messages are written for people, never
 * raw exceptions. 409 means "the record moved on or disagrees", which clients treat as re-read.
 */
export const ERROR_STATUS = {
  // The domain's refusals (DomainErrorCode).
  illegal_transition: 409,
  action_not_permitted_for_stage: 422,
  reconciliation_required: 422,
  provider_job_id_required: 400,
  evidence_required: 400,
  invalid_input: 400,
  conflicting_registration: 409,
  not_claim_owner: 409,
  stale_fencing_token: 409,
  hold_already_resolved: 409,
  amount_exceeds_hold: 422,
  invalid_amount: 400,
  four_eyes_violation: 403,
  replacement_expired: 410,
  replacement_not_allowed: 422,
  outputs_unavailable: 409,
  forbidden: 403,
  assigned_to_someone_else: 403,
  // The boundary's own.
  invalid_request: 400,
  unauthenticated: 401,
  // A GET that writes (an evidence export), reached from another site (Sec-Fetch-Site: cross-site).
  cross_site_refused: 403,
  not_found: 404,
  // A person's producer scope named a producer no API key or operation has (a typo would hide everything).
  unknown_producer: 400,
  conflict: 409,
  lost_race: 409,
  provider_job_in_use: 409,
  // Rule 14: the job a "no job exists" verdict denied is visible now, so no replacement is paid for.
  original_job_found: 409,
  // Rule 14 on a provider with no job list and no client-reference lookup: the original job cannot
  // be looked for before paying again, so no replacement rests on a "no job exists" verdict there.
  provider_cannot_be_searched: 409,
  replacement_withdrawn: 409,
  // DESIGN rule 18: the provider may still complete the hold's send, so it is not released; finance
  // may write it off with a reason instead.
  send_outcome_unknown: 409,
  // DESIGN rule 18: the hold's job is known to be completed; it is settled, never released or written off.
  send_completed: 409,
  // A producer tested a notification endpoint it (or an admin, or a 410 answer) disabled.
  endpoint_disabled: 409,
  // A resend of a case's notifications found none given up (decision 045).
  nothing_to_resend: 409,
  // A bulk execution needs its own dry run's token (decision 032): unknown or someone else's,
  // for a different request, or spent (executed already, or expired).
  bulk_preview_invalid: 400,
  bulk_preview_mismatch: 409,
  bulk_preview_expired: 409,
  // The provider could not be asked to the end; nothing changed and the same request can be tried later.
  provider_check_failed: 503,
  // Production without EVIDENCE_SIGNING_KEY: nothing is exported unsigned (decision 029).
  evidence_signing_unconfigured: 503,
  // One amount above the deployment's money ceiling (MONEY_CEILING_MICROS, decision 051); nothing was written.
  amount_above_ceiling: 400,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  // Authorising would take replacements past a spend limit finance set; the figures say by how much.
  spend_limit_exceeded: 409,
  // A permit would take a producer's sends past a spend limit (decision 037); nothing was written.
  spend_limit_reached: 409,
  // The provider's unknown-outcome breaker is open: no new permits until its window clears or an admin resumes it.
  provider_paused: 503,
  // A person paused the send's provider, producer or model (decision 064): no new permits until resumed.
  sends_paused: 503,
  too_early: 425,
  internal: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export type ErrorIssue = { path: string; message: string };
/** Figures a refusal is about (a spend limit's limit, use and request), for programs and the console alike. */
export type ErrorDetails = Record<string, string | number | null>;

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extra: { issues?: ErrorIssue[]; retryAfterSeconds?: number; details?: ErrorDetails } = {},
  ) {
    super(message);
    this.name = "AppError";
  }

  get status(): number {
    return statusOf(this.code);
  }
}

export type ErrorBody = {
  error: { code: ErrorCode; message: string; issues?: ErrorIssue[]; details?: ErrorDetails };
};

function statusOf(code: ErrorCode): number {
  return ERROR_STATUS[code];
}

/** Unknown exceptions become a generic `internal` error so no stack or driver message leaks. */
export function toErrorBody(error: unknown): { status: number; body: ErrorBody; retryAfterSeconds?: number } {
  if (error instanceof AppError) {
    const { issues, retryAfterSeconds, details } = error.extra;
    return {
      status: error.status,
      body: {
        error: {
          code: error.code,
          message: error.message,
          ...(issues ? { issues } : {}),
          ...(details ? { details } : {}),
        },
      },
      ...(retryAfterSeconds ? { retryAfterSeconds } : {}),
    };
  }
  // A malformed percent-escape in a URL is the client's mistake, not the server's.
  if (error instanceof URIError) {
    return { status: 400, body: { error: { code: "invalid_request", message: "The URL is not validly encoded." } } };
  }
  // A domain refusal answers through the same registry: its code compiles here only while it is registered.
  if (isDomainError(error)) {
    return { status: statusOf(error.code), body: { error: { code: error.code, message: error.message } } };
  }
  return { status: 500, body: { error: { code: "internal", message: "Something went wrong; it has been logged." } } };
}
