import { lookup as dnsLookup } from "node:dns/promises";
import { postWebhook } from "./post-webhook";
import type { WebhookAllowList } from "./webhook-allow-list";
import { vetWebhookTarget, type WebhookLookup } from "./webhook-target";

export const SEND_TIMEOUT_MS = 10_000;

export const systemLookup: WebhookLookup = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

export type WebhookSendOptions = {
  /** Where webhooks may go besides public https addresses (WEBHOOK_ALLOWED_HOSTS). */
  allow: WebhookAllowList;
  lookup?: WebhookLookup;
  /** An in-process endpoint instead of the network (the simulation); the address check still runs first. */
  fetchImpl?: typeof fetch;
};

/**
 * What one send came to: the address was refused before any connection, the receiver answered
 * (any status, 3xx included: redirects are not followed), or no answer came (no connection, TLS,
 * timeout). `error` is for the server's own records, never for a caller.
 */
export type WebhookAttempt =
  | { kind: "refused"; reason: string }
  | { kind: "answered"; status: number }
  | { kind: "no_answer"; error: string };

/**
 * The one way a webhook leaves the server, for the worker's deliveries and a producer's test send
 * alike: the address is checked at send time (names can change what they resolve to after the URL
 * was saved) and the connection goes to that checked address (docs/decisions/018).
 */
export async function sendWebhook(
  url: string,
  headers: Record<string, string>,
  body: string,
  options: WebhookSendOptions,
): Promise<WebhookAttempt> {
  try {
    const vetting = await withTimeout(
      vetWebhookTarget(url, options.allow, options.lookup ?? systemLookup),
      SEND_TIMEOUT_MS,
    );
    if (!vetting.ok) return { kind: "refused", reason: vetting.reason };
    if (options.fetchImpl) {
      const response = await options.fetchImpl(url, { method: "POST", headers, body, redirect: "manual" });
      await response.body?.cancel();
      return { kind: "answered", status: response.status };
    }
    return { kind: "answered", status: await postWebhook(vetting.target, headers, body, SEND_TIMEOUT_MS) };
  } catch (cause) {
    return { kind: "no_answer", error: cause instanceof Error ? cause.message : String(cause) };
  }
}

/** A lookup cannot be cancelled; a hung resolver must still not hold the caller. */
function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
