import { Webhook } from "standardwebhooks";
import { createOneCreateFetch, describeSentCreate } from "./guard/one-create-fetch.js";
import type {
  ApiErrorBody,
  ApiErrorDetails,
  ApiErrorIssue,
  OperationStanding,
  OutcomeAnswer,
  OutcomeReportInput,
  ParkAnswer,
  ParkCaseInput,
  Permit,
  PermitAnswer,
  PermitRequestInput,
  ProviderName,
  Replacement,
  ReplacementAck,
  ReplacementList,
  WebhookProvider,
} from "./types.js";
import { WEBHOOK_PROVIDERS } from "./types.js";

// The producer's side of the recovery queue, as an installable package (ESM and CommonJS, built by
// sdk/build.mjs). The fingerprint is the server's own canonicalisation, compiled in from the one
// file that holds it (lib/domain/canonical-json.ts imports nothing of the app).
export { CanonicalJsonError, canonicalJson, requestFingerprint } from "../../lib/domain/canonical-json.js";
export * from "./guard/index.js";
export * from "./types.js";

export type RecoveryConfig = {
  /** The recovery app, e.g. "https://recovery.example.com". */
  baseUrl: string;
  /** A producer API key (vrk_…). */
  apiKey: string;
  fetch?: typeof fetch;
  /** Per call to the recovery app (not to the provider), default 15 s. */
  timeoutMs?: number;
};

/** What to send: the permit request with the operation it is for; the deadline defaults to 10 minutes. */
export type Send = Omit<PermitRequestInput, "sendDeadline"> & { operationId: string; sendWithinSeconds?: number };

/**
 * What `submit` gives the create callback. An object, so fields can be added without breaking a
 * callback that reads only some of them.
 */
export type CreateContext = {
  /** The app's webhook URL for this send, for a provider whose webhooks it verifies (Replicate, fal); else undefined. */
  webhookUrl: string | undefined;
  /**
   * Aborted at `createTimeoutMs`: pass it to the provider call (`fetch(url, { signal })`) so a
   * create that outlives the timeout is cut off rather than left running unobserved.
   */
  signal: AbortSignal;
  /**
   * The one-create fetch: the first request that is not GET or HEAD goes on the wire, every later
   * one throws `CreateAlreadySent` before any network I/O. Give it to the provider's official
   * client (`guardReplicate(ctx, …)` and its siblings, ./guard) so that whatever the client retries
   * inside, at most one create reaches the provider per send.
   */
  fetch: typeof fetch;
  provider: ProviderName;
  permit: Permit;
};

export type CreateCallback = (context: CreateContext) => Promise<{ providerJobId: string }>;

export type SubmitOptions = {
  /**
   * How long the create may take before it is aborted (its `signal`) and reported `unknown`, which
   * parks the send for people. Unset: no limit of the SDK's own.
   */
  createTimeoutMs?: number;
};

/** What a create that had timed out came to after all (`lateReport`). */
export type LateReport =
  /** The provider's answer arrived after the timeout: reported `accepted`, so the parked case gets its job. */
  | { outcome: "accepted"; providerJobId: string; reported: boolean }
  /** The create failed after the timeout (often the abort itself): the send stays parked as unknown. */
  | { outcome: "error"; error: unknown };

export type SubmitResult =
  /**
   * No new permit: the operation was sent before (in flight, parked or done), or its permit already
   * existed (another process, or this one before a restart, holds it and may have sent: its report,
   * or its deadline, settles what happened). The create was not called.
   */
  | { sent: false; answer: PermitAnswer }
  /** `permit` carries the token for the later `completed` or `failed` report of a job you poll yourself. */
  | { sent: true; outcome: "accepted"; providerJobId: string; reported: boolean; permit: Permit }
  /** The provider definitely refused (the create threw ProviderRejected): nothing was bought. */
  | { sent: true; outcome: "rejected"; error: unknown; reported: boolean; permit: Permit }
  /**
   * Anything else (a timeout, a lost answer, an answer without a job ID): the send is parked for
   * people; never resent from here.
   * After a timeout `lateReport` settles once the create's own promise does: with its job, reported
   * `accepted` (the parked case is given its job), or with its error. It never rejects, holds no
   * timer (the process may exit without it) and stays pending for as long as the create does, so a
   * create that honours `signal` ends it promptly. Null when the create itself threw.
   */
  | {
      sent: true;
      outcome: "unknown";
      error: unknown;
      reported: boolean;
      permit: Permit;
      lateReport: Promise<LateReport> | null;
    };

/** Throw this from the create callback only when the provider definitely refused the request. */
export class ProviderRejected extends Error {
  override name = "ProviderRejected";
}

/** The create did not answer within `createTimeoutMs`: the reason its signal was aborted with. */
export class CreateTimeout extends Error {
  override name = "CreateTimeout";
  constructor(readonly timeoutMs: number) {
    super(`the create gave no answer within ${timeoutMs} ms`);
  }
}

/**
 * The app refused a call. `code` is the API's stable code (`invalid_request`, `conflicting_registration`,
 * `rate_limited`, …), `serverMessage` its explanation, `issues` the fields a refused body got wrong,
 * `details` the figures a refusal is about; `message` says the status, code, explanation and issues in one line.
 */
export class RecoveryApiError extends Error {
  override name = "RecoveryApiError";
  readonly issues: ApiErrorIssue[];
  readonly details: ApiErrorDetails | undefined;
  /** From a 429's Retry-After: wait this long before calling again. */
  readonly retryAfterSeconds: number | undefined;
  constructor(
    readonly status: number,
    readonly code: string,
    readonly serverMessage: string,
    extra: { issues?: ApiErrorIssue[]; details?: ApiErrorDetails; retryAfterSeconds?: number } = {},
  ) {
    const issues = extra.issues ?? [];
    const listed = issues.map((issue) => `${issue.path}: ${issue.message}`).join("; ");
    super(`${status} ${code}: ${serverMessage}${listed ? ` (${listed})` : ""}`);
    this.issues = issues;
    this.details = extra.details;
    this.retryAfterSeconds = extra.retryAfterSeconds;
  }
}

const DEFAULT_SEND_WINDOW_SECONDS = 600;

export function createRecoveryClient(config: RecoveryConfig) {
  const base = config.baseUrl.replace(/\/+$/, "");
  const fetcher = config.fetch ?? fetch;

  async function call<T>(method: "GET" | "POST" | "PUT", path: string, body?: unknown): Promise<T> {
    const response = await fetcher(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${config.apiKey}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      // Node's timeout signal holds no reference on the process: it never delays exit.
      signal: AbortSignal.timeout(config.timeoutMs ?? 15_000),
    });
    const json: unknown = await response.json().catch(() => null);
    if (!response.ok) throw apiError(response, json);
    return json as T;
  }

  const enc = encodeURIComponent;
  // `submitReplacement` takes the same create callback and options as `submit`, whatever they grow into.

  /** Asks before a paid create (docs/design.md 6a): a permit, or where the operation stands. */
  function permit(send: Send): Promise<PermitAnswer> {
    const { operationId, sendWithinSeconds, ...rest } = send;
    const sendDeadline = new Date(Date.now() + (sendWithinSeconds ?? DEFAULT_SEND_WINDOW_SECONDS) * 1000).toISOString();
    return call("POST", `/api/v1/operations/${enc(operationId)}/attempts`, { ...rest, sendDeadline });
  }

  /** Reports what a permitted send came to. */
  function report(attemptId: string, input: OutcomeReportInput): Promise<OutcomeAnswer> {
    return call("POST", `/api/v1/attempts/${enc(attemptId)}/outcome`, input);
  }

  /**
   * The safe path in one call: ask for a permit and, only when this call created it, call `create`
   * exactly once (with the webhook URL for `provider`, whose signed reference lets the provider's
   * own webhook reach the case, and a signal aborted at `createTimeoutMs`), then report what
   * happened. A throw or a timeout is reported as `unknown`, never retried: the product parks it,
   * and a deadline parks it even if this report never arrives. Only `ProviderRejected` counts as a
   * definite refusal. A job that answers after its timeout is still reported (see `lateReport`).
   */
  async function submit(send: Send, create: CreateCallback, options: SubmitOptions = {}): Promise<SubmitResult> {
    const answer = await permit(send);
    if (answer.status !== "permitted" || !answer.created) return { sent: false, answer };
    return sendUnderPermit(send.provider, answer, create, options);
  }

  /**
   * An authorised replacement (decision 036), sent under the permit the product issued with it: taken
   * by acknowledging it first (only the call whose acknowledgement took it sends, so a restart or a
   * second process never sends it again), then sent exactly once and reported like any `submit`.
   * A replacement not listed as authorised (taken already, withdrawn, or unknown) is not sent.
   */
  async function submitReplacement(
    replacementId: string,
    create: CreateCallback,
    options: SubmitOptions = {},
  ): Promise<
    SubmitResult | { sent: false; replacement: Replacement | null; reason: "not_authorized" | "taken" | "withdrawn" }
  > {
    const item = (await replacements("authorized")).items.find((r) => r.id === replacementId) ?? null;
    if (item?.permit?.status !== "live") return { sent: false, replacement: item, reason: "not_authorized" };
    const taken = await ack(replacementId).catch((error: unknown) => {
      if (error instanceof RecoveryApiError && error.code === "replacement_withdrawn") return null;
      throw error;
    });
    if (!taken) return { sent: false, replacement: item, reason: "withdrawn" };
    if (!taken.changed) return { sent: false, replacement: item, reason: "taken" };
    const { status: _, ...granted } = item.permit;
    return sendUnderPermit(
      // The app takes only the registry's provider names at its doors, so a case's provider is one.
      item.provider as ProviderName,
      { status: "permitted", created: true, permit: granted, webhook: item.webhook },
      create,
      options,
    );
  }

  /** Calls `create` once under a permit this process holds, and reports what came of it. */
  async function sendUnderPermit(
    sendProvider: ProviderName,
    answer: Extract<PermitAnswer, { status: "permitted" }>,
    create: CreateCallback,
    options: SubmitOptions,
  ): Promise<SubmitResult> {
    const { attemptId, token, operationId } = answer.permit;
    const outcome = (kind: "accepted" | "rejected" | "unknown", summary: string, providerJobId?: string) =>
      report(attemptId, {
        operationId,
        token,
        outcome: kind,
        ...(providerJobId ? { providerJobId } : {}),
        evidence: { summary: summary.slice(0, 2000) || kind, observedAt: new Date().toISOString() },
      }).then(
        () => true,
        () => false, // the permit's deadline parks the send if this report is lost
      );
    const controller = new AbortController();
    const guard = createOneCreateFetch(controller.signal);
    // What the one create got, and how many resends of the client's own the guard refused.
    const onWire = () => describeSentCreate(guard.sent(), guard.refused());
    // The create threw (or answered without a job): a definite refusal, or unknown. A 429 or 503 on
    // the create reads as a refusal, but the client's own error may come from a resend it tried, and
    // only the producer can vouch for a refusal: anything but ProviderRejected is unknown.
    const ended = async (error: unknown): Promise<SubmitResult> => {
      const kind = isProviderRejected(error) ? "rejected" : "unknown";
      const reported = await outcome(kind, `the create call ended: ${describe(error)}; ${onWire()}`);
      return kind === "rejected"
        ? { sent: true, outcome: kind, error, reported, permit: answer.permit }
        : { sent: true, outcome: kind, error, reported, permit: answer.permit, lateReport: null };
    };
    const webhookUrl = isWebhookProvider(sendProvider) ? answer.webhook?.urls[sendProvider] : undefined;
    let work: Promise<{ providerJobId: string }>;
    try {
      work = Promise.resolve(
        create({
          webhookUrl,
          signal: controller.signal,
          fetch: guard.fetch,
          provider: sendProvider,
          permit: answer.permit,
        }),
      );
    } catch (error) {
      work = Promise.reject(error);
    }
    const settled = await settleWithin(work, options.createTimeoutMs, controller);
    // The submit's one create is spent: whatever the client still tries (a late resend) is refused.
    guard.close();
    if (settled.kind === "timeout") {
      const reported = await outcome("unknown", `the create call ended: ${describe(settled.error)}; ${onWire()}`);
      // Whatever the create comes to now is reported after the `unknown` above, never before it.
      const lateReport = work.then(
        async (late): Promise<LateReport> => {
          const providerJobId = jobIdOf(late);
          if (providerJobId instanceof Error) return { outcome: "error", error: providerJobId };
          const summary = "the provider answered after the create had timed out";
          return { outcome: "accepted", providerJobId, reported: await outcome("accepted", summary, providerJobId) };
        },
        (error: unknown): LateReport => ({ outcome: "error", error }),
      );
      return { sent: true, outcome: "unknown", error: settled.error, reported, permit: answer.permit, lateReport };
    }
    if (settled.kind === "error") return ended(settled.error);
    const providerJobId = jobIdOf(settled.value);
    if (providerJobId instanceof Error) return ended(providerJobId);
    const reported = await outcome("accepted", "the provider accepted the create", providerJobId);
    return { sent: true, outcome: "accepted", providerJobId, reported, permit: answer.permit };
  }

  /** Replacements finance authorised (or withdrew), each with the permit issued for it. */
  function replacements(status: "authorized" | "withdrawn" = "authorized") {
    return call<ReplacementList>("GET", `/api/v1/replacements?status=${status}`);
  }

  /** Takes an authorised replacement: `changed` is true only for the call that took it. */
  function ack(replacementId: string) {
    return call<ReplacementAck>("POST", `/api/v1/replacements/${enc(replacementId)}/ack`);
  }

  return {
    permit,
    report,
    submit,
    submitReplacement,
    /** Parks an ambiguous job that was sent without a permit (idempotent: the same registration again is `created: false`). */
    park: (input: ParkCaseInput) => call<ParkAnswer>("POST", "/api/v1/cases", input),
    /**
     * Where one of your operations stands: its case, or for a send that never needed one (in flight,
     * refused, completed) its latest permit with `caseId: null`. A 404 only for an operation the app never saw.
     */
    lookup: (operationId: string) => call<OperationStanding>("GET", `/api/v1/cases/by-operation/${enc(operationId)}`),
    /** Replacements finance authorised (or withdrew), each with its permit: send one with `submitReplacement`. */
    replacements,
    ack,
    /** The webhook URL to give `provider`'s create call, from a permit's answer. */
    webhookUrl: (answer: PermitAnswer, provider: WebhookProvider) =>
      answer.status === "permitted" ? (answer.webhook?.urls[provider] ?? null) : null,
    notificationEndpoint: notificationEndpointCalls(call),
  };
}

export type RecoveryClient = ReturnType<typeof createRecoveryClient>;

// ---------------------------------------------------------------------------------------------
// Notification endpoint: where the product sends this producer's signed notifications.
// ---------------------------------------------------------------------------------------------

/** Your endpoint as the API shows it: never its signing secret. Dates are ISO 8601 strings. */
export type NotificationEndpoint = {
  id: string;
  producer: string;
  url: string;
  enabled: boolean;
  disabledAt: string | null;
  createdAt: string;
  updatedAt: string;
  /** When the signing secret was last replaced; null while it is the one issued at registration. */
  secretRotatedAt: string | null;
};

/**
 * `signingSecret` (whsec_…) is present only when one was issued by this call: on registration
 * and on rotation. Store it then; it is never shown again. Null when a call only changed the URL.
 */
export type NotificationEndpointSecret = { endpoint: NotificationEndpoint; signingSecret: string | null };

export type NotificationTestResult =
  | { delivered: true; webhookId: string; status: number }
  | {
      delivered: false;
      webhookId: string;
      /** The endpoint's HTTP status when it answered (not 2xx), otherwise null. */
      status: number | null;
      /** http_status: it answered, not 2xx; address_refused: not a public https address; no_answer: no connection, TLS or timeout. */
      failure: "http_status" | "address_refused" | "no_answer";
      message: string;
    };

type Call = <T>(method: "GET" | "POST" | "PUT", path: string, body?: unknown) => Promise<T>;

function notificationEndpointCalls(call: Call) {
  const path = "/api/v1/notification-endpoint";
  const endpointOnly = (action: string) =>
    call<{ endpoint: NotificationEndpoint }>("POST", `${path}/${action}`).then((answer) => answer.endpoint);
  return {
    /** Your endpoint, or null when none is registered. */
    get: () => call<{ endpoint: NotificationEndpoint | null }>("GET", path).then((answer) => answer.endpoint),
    /** Registers your endpoint (the answer carries its signing secret, this once) or changes its URL. */
    register: (url: string) => call<NotificationEndpointSecret>("PUT", path, { url }),
    /** A new signing secret, returned this once; the old one stops signing at once. */
    rotate: () => call<{ endpoint: NotificationEndpoint; signingSecret: string }>("POST", `${path}/rotate-secret`),
    /** Nothing is sent while disabled; the URL and secret are kept. Idempotent. */
    disable: () => endpointOnly("disable"),
    enable: () => endpointOnly("enable"),
    /**
     * Has the product send your endpoint a signed `endpoint.test` event now and says what came of
     * it; a disabled endpoint is refused (`RecoveryApiError` code `endpoint_disabled`), and only a
     * few tests a minute are allowed (`rate_limited`).
     */
    test: () => call<NotificationTestResult>("POST", `${path}/test`),
  };
}

/**
 * Request headers as the common servers hand them over: Node's `req.headers` (`IncomingHttpHeaders`,
 * values string, string[] or undefined), a Fetch `Headers`, or a plain object.
 */
export type NotificationHeaders =
  | { get(name: string): string | null }
  | Readonly<Record<string, string | readonly string[] | undefined>>;

/**
 * Checks one of the product's own notifications (Standard Webhooks, with the endpoint's `whsec_`
 * secret) on its raw body, exactly as received, and returns the parsed event; throws when it does
 * not verify (wrong secret, changed body, a timestamp more than 5 minutes off).
 */
export function verifyNotification(secret: string, rawBody: string, headers: NotificationHeaders): unknown {
  return new Webhook(secret).verify(rawBody, plainHeaders(headers));
}

const SIGNED_HEADERS = ["webhook-id", "webhook-timestamp", "webhook-signature"] as const;

function plainHeaders(headers: NotificationHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof headers.get === "function") {
    const fetchHeaders = headers as { get(name: string): string | null };
    for (const name of SIGNED_HEADERS) {
      const value = fetchHeaders.get(name);
      if (value !== null) out[name] = value;
    }
    return out;
  }
  const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
  for (const [key, value] of Object.entries(record)) {
    const name = key.toLowerCase();
    if (!(SIGNED_HEADERS as readonly string[]).includes(name) || value === undefined) continue;
    // A header sent twice: its signatures are space-separated candidates, any of which may verify.
    out[name] = typeof value === "string" ? value : value.join(" ");
  }
  return out;
}

/** The job ID a create resolved with, or why there is none (which leaves the send unknown: it may exist). */
function jobIdOf(value: unknown): string | Error {
  const id = (value as { providerJobId?: unknown } | null | undefined)?.providerJobId;
  return typeof id === "string" && id.trim() !== "" ? id : new TypeError("the create resolved without a providerJobId");
}

/**
 * A definite refusal, also when the error comes from the package's other build: a project that
 * loads both the ESM and the CommonJS copy has two `ProviderRejected` classes, and `instanceof`
 * against the wrong one would turn a refusal (nothing bought) into an unknown (parked for people).
 */
function isProviderRejected(error: unknown): boolean {
  return error instanceof ProviderRejected || (error instanceof Error && error.name === "ProviderRejected");
}

function isWebhookProvider(provider: string): provider is WebhookProvider {
  return (WEBHOOK_PROVIDERS as readonly string[]).includes(provider);
}

function apiError(response: Response, json: unknown): RecoveryApiError {
  const body = (json as Partial<ApiErrorBody> | null)?.error;
  const retryAfter = Number(response.headers.get("retry-after"));
  return new RecoveryApiError(
    response.status,
    typeof body?.code === "string" ? body.code : "http_error",
    typeof body?.message === "string" ? body.message : response.statusText || `HTTP ${response.status}`,
    {
      ...(Array.isArray(body?.issues) ? { issues: body.issues } : {}),
      ...(body?.details && typeof body.details === "object" ? { details: body.details } : {}),
      ...(Number.isFinite(retryAfter) && retryAfter > 0 ? { retryAfterSeconds: retryAfter } : {}),
    },
  );
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

type Settled<T> =
  | { kind: "value"; value: T }
  | { kind: "error"; error: unknown }
  | { kind: "timeout"; error: CreateTimeout };

/** The create's own end, or its timeout (aborting its signal); the timer is cleared either way. */
function settleWithin<T>(work: Promise<T>, ms: number | undefined, controller: AbortController): Promise<Settled<T>> {
  const ended = work.then(
    (value): Settled<T> => ({ kind: "value", value }),
    (error: unknown): Settled<T> => ({ kind: "error", error }),
  );
  if (!ms) return ended;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<Settled<T>>((resolve) => {
    timer = setTimeout(() => {
      const error = new CreateTimeout(ms);
      controller.abort(error);
      resolve({ kind: "timeout", error });
    }, ms);
  });
  return Promise.race([ended, timedOut]).finally(() => clearTimeout(timer));
}
