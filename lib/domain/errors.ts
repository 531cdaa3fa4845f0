export const DOMAIN_ERROR_CODES = [
  "illegal_transition",
  "action_not_permitted_for_stage",
  "reconciliation_required",
  "provider_job_id_required",
  "evidence_required",
  "invalid_input",
  "conflicting_registration",
  "not_claim_owner",
  "stale_fencing_token",
  "hold_already_resolved",
  "amount_exceeds_hold",
  "invalid_amount",
  "four_eyes_violation",
  "replacement_expired",
  "replacement_not_allowed",
  "outputs_unavailable",
  "forbidden",
  "assigned_to_someone_else",
] as const;
export type DomainErrorCode = (typeof DOMAIN_ERROR_CODES)[number];

export type DomainErrorDetails = Readonly<Record<string, unknown>>;

export class DomainError extends Error {
  override readonly name = "DomainError";
  readonly code: DomainErrorCode;
  readonly details?: DomainErrorDetails;

  constructor(code: DomainErrorCode, message?: string, details?: DomainErrorDetails) {
    super(message ?? code);
    this.code = code;
    this.details = details;
  }
}

export function isDomainError(value: unknown): value is DomainError {
  return value instanceof DomainError;
}

/**
 * One mapping for every route, so the same refusal never surfaces as a 400 in one place and a
 * 409 in another. 409 means "the record moved on or disagrees", which clients treat as re-read.
 */
export const HTTP_STATUS_BY_CODE: Readonly<Record<DomainErrorCode, number>> = {
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
};

export type Result<T> = { ok: true; value: T } | { ok: false; error: DomainError };

export function ok<T>(value: T): { ok: true; value: T } {
  return { ok: true, value };
}

export function fail(
  code: DomainErrorCode,
  message?: string,
  details?: DomainErrorDetails,
): { ok: false; error: DomainError } {
  return { ok: false, error: new DomainError(code, message, details) };
}

/** For callers that prefer exceptions at their boundary. */
export function unwrap<T>(result: Result<T>): T {
  if (!result.ok) throw result.error;
  return result.value;
}
