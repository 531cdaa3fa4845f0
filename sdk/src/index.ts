import { Webhook } from "standardwebhooks";
import type { ParkCaseInput } from "../../lib/validation/park-case";
import type { OutcomeReportInput, PermitRequestInput } from "../../lib/validation/permits";

// The producer's side of the recovery queue. Request bodies are the API's own zod types (one
// definition, in lib/validation); the fingerprint is the server's own canonicalisation.
export { canonicalJson, requestFingerprint } from "../../lib/domain/fingerprint";
export type { OutcomeReportInput, ParkCaseInput, PermitRequestInput };

export type RecoveryConfig = {
  /** The recovery app, e.g. "https://recovery.example.com". */
  baseUrl: string;
  /** A producer API key (vrk_…). */
  apiKey: string;
  fetch?: typeof fetch;
  /** Per call to the recovery app (not to the provider), default 15 s. */
  timeoutMs?: number;
};

export type Permit = { operationId: string; attemptId: string; token: number; sendDeadline: string; holdId: string };
export type PermitAnswer =
  | {
      status: "permitted";
      created: boolean;
      permit: Permit;
      webhook: { ref: string; urls: { replicate: string; fal: string } } | null;
    }
  | { status: "in_flight"; operationId: string; providerJobId: string }
  | { status: "uncertain" | "done"; operationId: string; caseId: string | null };

export type OutcomeAnswer = {
  operationId: string;
  attemptId: string;
  status: string;
  providerJobId: string | null;
  caseId: string | null;
  changed: boolean;
};

/** An authorised (or withdrawn) replacement, with the permit the product issued for it (void once withdrawn). */
export type Replacement = {
  id: string;
  status: "authorized" | "withdrawn";
  operationId: string;
  provider: string;
  model: string;
  attemptId: string | null;
  replacesAttemptId: string | null;
  hold: { holdId: string; amountMicros: number; currency: string } | null;
  permit: (Permit & { status: string }) | null;
  webhook: { ref: string; urls: { replicate: string; fal: string } } | null;
  authorizedAt: string | null;
  acknowledgedAt: string | null;
  withdrawnReason?: string | null;
};

/** What to send: the permit request with the operation it is for; the deadline defaults to 10 minutes. */
export type Send = Omit<PermitRequestInput, "sendDeadline"> & { operationId: string; sendWithinSeconds?: number };

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
  /** Anything else (a timeout, a lost answer): the send is parked for people; never resent from here. */
  | { sent: true; outcome: "unknown"; error: unknown; reported: boolean; permit: Permit };

/** Throw this from the create callback only when the provider definitely refused the request. */
export class ProviderRejected extends Error {
  override name = "ProviderRejected";
}

export class RecoveryApiError extends Error {
  override name = "RecoveryApiError";
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const DEFAULT_SEND_WINDOW_SECONDS = 600;

export function createRecoveryClient(config: RecoveryConfig) {
  const base = config.baseUrl.replace(/\/+$/, "");
  const fetcher = config.fetch ?? fetch;

  async function call<T>(method: "GET" | "POST", path: string, body?: unknown): Promise<T> {
    const response = await fetcher(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${config.apiKey}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(config.timeoutMs ?? 15_000),
    });
    const json = (await response.json().catch(() => null)) as { error?: { code: string; message: string } } | null;
    if (!response.ok) {
      throw new RecoveryApiError(
        response.status,
        json?.error?.code ?? "http_error",
        json?.error?.message ?? response.statusText,
      );
    }
    return json as T;
  }

  const enc = encodeURIComponent;
  // `submitReplacement` takes the same create callback and options as `submit`, whatever they grow into.
  type Create = Parameters<typeof submit>[1];
  type SendOptions = NonNullable<Parameters<typeof submit>[2]>;

  /** Asks before a paid create (DESIGN 6a): a permit, or where the operation stands. */
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
   * exactly once (with the webhook URL
   * for `provider`, whose signed reference lets the provider's own webhook reach the case), report
   * what happened. A throw or a timeout is reported as `unknown`, never retried: the product parks
   * it, and a deadline parks it even if this report never arrives. Only `ProviderRejected` counts
   * as a definite refusal.
   */
  async function submit(
    send: Send,
    create: (context: { webhookUrl: string | undefined }) => Promise<{ providerJobId: string }>,
    options: { createTimeoutMs?: number } = {},
  ): Promise<SubmitResult> {
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
    create: Create,
    options: SendOptions = {},
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
      item.provider,
      { status: "permitted", created: true, permit: granted, webhook: item.webhook },
      create,
      options,
    );
  }

  /** Calls `create` once under a permit this process holds, and reports what came of it. */
  async function sendUnderPermit(
    sendProvider: string,
    answer: Extract<PermitAnswer, { status: "permitted" }>,
    create: Create,
    options: SendOptions,
  ): Promise<SubmitResult> {
    const { attemptId, token, operationId } = answer.permit;
    // Only providers that sign their webhooks get a URL; Runway, Veo and Luma sign none, so their creates get none.
    const provider = sendProvider === "fal" || sendProvider === "replicate" ? sendProvider : undefined;
    const outcome = (kind: OutcomeReportInput["outcome"], summary: string, providerJobId?: string) =>
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
    let created: { providerJobId: string };
    try {
      const webhookUrl = provider ? answer.webhook?.urls[provider] : undefined;
      created = await withTimeout(create({ webhookUrl }), options.createTimeoutMs);
    } catch (error) {
      const kind = error instanceof ProviderRejected ? "rejected" : "unknown";
      const reported = await outcome(kind, `the create call ended: ${describe(error)}`);
      return { sent: true, outcome: kind, error, reported, permit: answer.permit };
    }
    const reported = await outcome("accepted", "the provider accepted the create", created.providerJobId);
    return { sent: true, outcome: "accepted", providerJobId: created.providerJobId, reported, permit: answer.permit };
  }

  function replacements(status: "authorized" | "withdrawn" = "authorized") {
    return call<{ items: Replacement[] }>("GET", `/api/v1/replacements?status=${status}`);
  }

  function ack(replacementId: string) {
    return call<{ id: string; acknowledgedAt: string | null; changed: boolean }>(
      "POST",
      `/api/v1/replacements/${enc(replacementId)}/ack`,
    );
  }

  return {
    permit,
    report,
    submit,
    submitReplacement,
    /** Parks an ambiguous job that was sent without a permit (idempotent). */
    park: (input: ParkCaseInput) =>
      call<{ caseId: string; created: boolean; stage: string; state: string }>("POST", "/api/v1/cases", input),
    /** Where one of your operations stands. */
    lookup: (operationId: string) =>
      call<Record<string, unknown>>("GET", `/api/v1/cases/by-operation/${enc(operationId)}`),
    /** Replacements finance authorised (or withdrew), each with its permit: send one with `submitReplacement`. */
    replacements,
    ack,
    /** The webhook URL to give `provider`'s create call, from a permit's answer. */
    webhookUrl: (answer: PermitAnswer, provider: "replicate" | "fal") =>
      answer.status === "permitted" ? (answer.webhook?.urls[provider] ?? null) : null,
  };
}

export type RecoveryClient = ReturnType<typeof createRecoveryClient>;

/**
 * Checks one of the product's own notifications (Standard Webhooks, with the endpoint's `whsec_`
 * secret) on its raw body and returns the parsed event; throws when it does not verify.
 */
export function verifyNotification(secret: string, rawBody: string, headers: Record<string, string>): unknown {
  return new Webhook(secret).verify(rawBody, headers);
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

function withTimeout<T>(work: Promise<T>, ms: number | undefined): Promise<T> {
  if (!ms) return work;
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
