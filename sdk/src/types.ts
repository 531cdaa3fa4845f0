// What crosses the wire, written out as plain TypeScript so the package needs neither zod nor the
// app. Each type is held equal to the server's own (its zod schemas, its services' answers, the
// provider registry) by tests/unit/sdk-types.test.ts: a change on one side that the other does not
// follow fails the typecheck, not a producer in production.

/** The providers the app knows, spelt exactly as the API takes them (lib/providers/registry.ts). */
export const PROVIDER_NAMES = ["replicate", "fal", "runway", "veo", "luma"] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

/** The providers whose webhooks the app verifies, so a create for them is given a webhook URL. */
export const WEBHOOK_PROVIDERS = ["replicate", "fal"] as const;
export type WebhookProvider = (typeof WEBHOOK_PROVIDERS)[number];

/** Where a parked job stood when it stopped (DESIGN 3). */
export type Stage = "submission_uncertain" | "polling" | "delivery" | "generation_failed";
export type CaseState = "parked" | "ready" | "claimed" | "resolved";
/** Where a permit stands: `withdrawn` is a replacement's permit called back before it was sent. */
export type PermitStatus = "live" | "accepted" | "rejected" | "uncertain" | "completed" | "failed" | "withdrawn";
export type PermitOutcome = "accepted" | "rejected" | "unknown" | "completed" | "failed";

export type JsonObject = Record<string, unknown>;

/** The money held for one send, in integer micro-units (1 USD = 1 000 000). */
export type Hold = { holdId: string; amountMicros: number; currency: string };

/** `POST /api/v1/operations/{operationId}/attempts`: what a producer states before a paid create. */
export type PermitRequestInput = {
  attemptId: string;
  /** `requestFingerprint(request)`: "sha256:" and 64 lowercase hex digits. */
  requestFingerprint: string;
  provider: ProviderName;
  model: string;
  hold: Hold;
  /** When the outcome will have been reported by (at most 24 h ahead); past it, the app parks the send. */
  sendDeadline: string;
  request?: JsonObject;
};

/** `POST /api/v1/attempts/{attemptId}/outcome`: what a permitted send came to, under its token. */
export type OutcomeReportInput = {
  operationId: string;
  token: number;
  outcome: PermitOutcome;
  /** Required with `accepted`; absent with `rejected` and `unknown`. */
  providerJobId?: string;
  /** With `completed`: the provider's output URLs, so the product can keep a copy before they expire. */
  outputs?: { url: string; contentType?: string; size?: number }[];
  evidence: { summary: string; observedAt: string; details?: JsonObject };
};

/** `POST /api/v1/cases`: an ambiguous job sent without a permit, parked for people (idempotent). */
export type ParkCaseInput = {
  operationId: string;
  attemptId: string;
  stage: Stage;
  provider: ProviderName;
  model: string;
  /** Required for `polling` and `delivery`; absent for `submission_uncertain`. */
  providerJobId?: string;
  requestFingerprint: string;
  request?: JsonObject;
  evidence: { summary: string; observedAt: string; source?: string; details?: JsonObject };
  counters?: { pollAttempts?: number; deliveryAttempts?: number };
  submittedAt?: string;
  retryDeadline?: string;
  hold: Hold;
};

export type Permit = { operationId: string; attemptId: string; token: number; sendDeadline: string; holdId: string };

/** The answer to a permit request: a permit, or where the operation stands (never a second permit). */
export type PermitAnswer =
  | {
      status: "permitted";
      /** True only for the request that issued the permit: only that caller may send. */
      created: boolean;
      permit: Permit;
      /** Null when the app has no signing secret configured. */
      webhook: { ref: string; urls: Record<WebhookProvider, string> } | null;
    }
  | { status: "in_flight"; operationId: string; providerJobId: string }
  | { status: "uncertain" | "done"; operationId: string; caseId: string | null };

export type OutcomeAnswer = {
  operationId: string;
  attemptId: string;
  status: PermitStatus;
  providerJobId: string | null;
  caseId: string | null;
  /** False when the same report was already recorded and nothing changed. */
  changed: boolean;
};

export type ParkAnswer = { caseId: string; created: boolean; stage: Stage; state: CaseState };

/** The operation's latest send permit, as `lookup` reports it. */
export type PermitStanding = {
  attemptId: string;
  token: number;
  status: PermitStatus;
  providerJobId: string | null;
  sendDeadline: string;
  reportedAt: string | null;
};

/**
 * `GET /api/v1/cases/by-operation/{operationId}`: the operation's case with its latest permit (null
 * for one parked without a permit), or, for an operation sent under a permit that never became a
 * case (in flight, refused, completed), `caseId: null` and the permit alone. Unknown operations are 404.
 */
export type OperationStanding =
  | {
      operationId: string;
      caseId: string;
      attemptId: string;
      stage: Stage;
      state: CaseState;
      episode: number;
      outcome: string | null;
      updatedAt: string;
      permit: PermitStanding | null;
    }
  | { operationId: string; caseId: null; permit: PermitStanding };

/** A replacement finance authorised (or called back): submit an authorised one yourself, then ack it. */
export type Replacement = {
  id: string;
  status: "authorized" | "withdrawn";
  operationId: string;
  provider: string;
  model: string;
  /** The attempt ID to send the replacement under. */
  attemptId: string | null;
  replacesAttemptId: string | null;
  hold: Hold | null;
  /** The permit the product issued with the authorisation (void once withdrawn): send under it, once. */
  permit: {
    operationId: string;
    attemptId: string;
    token: number;
    sendDeadline: string;
    holdId: string;
    status: PermitStatus;
  } | null;
  /** The webhook URLs for this send, as a permit's answer carries them. */
  webhook: { ref: string; urls: Record<WebhookProvider, string> } | null;
  authorizedAt: string | null;
  acknowledgedAt: string | null;
  /** Only on a withdrawn one: why it must not be sent. */
  withdrawnReason?: string | null;
};

export type ReplacementList = { items: Replacement[] };
/** `changed`: this call took the replacement (only the taker sends it). */
export type ReplacementAck = { id: string; acknowledgedAt: string | null; changed: boolean };

/** A problem with one field of a refused request, as the API lists them (`path` like "hold.amountMicros"). */
export type ApiErrorIssue = { path: string; message: string };
/** The figures a refusal is about (a spend limit's limit and use, …). */
export type ApiErrorDetails = Record<string, string | number | null>;
/**
 * Why a permit request was refused, as `RecoveryApiError.code`: a spend limit (409), the provider's
 * unknown-outcome breaker (503 with Retry-After), or a person's pause of the provider, producer or
 * model in the console (503, `details.pauseKind` and `details.pausedValue`; it lasts until resumed).
 */
export type PermitRefusalCode = "spend_limit_reached" | "provider_paused" | "sends_paused";
/** Every error the API answers has this body. */
export type ApiErrorBody = {
  error: { code: string; message: string; issues?: ApiErrorIssue[]; details?: ApiErrorDetails };
};
