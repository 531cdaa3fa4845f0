// The pure domain names its refusals and nothing more: these codes are a subset of the one code
// registry in lib/errors.ts, which alone says what HTTP status each answers with (decision 044).
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
