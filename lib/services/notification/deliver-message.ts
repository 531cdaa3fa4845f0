import type { Db } from "@/lib/db/client";
import { failedAttemptOutcome } from "@/lib/domain/notification-attempts";
import { afterFailedSend, isDelivered } from "@/lib/domain/webhook-retry";
import { increment } from "@/lib/metrics/counters";
import { sendWebhook, type WebhookSendOptions } from "@/lib/notify/send-webhook";
import { webhookHeaders } from "@/lib/notify/sign-webhook";
import { type DueNotification, deliveryEndpointFor } from "./claim-notification-deliveries";
import { type DestinationGone, recordDeliveryOutcome } from "./record-delivery-outcome";

/** While a message is being sent, nobody else picks it up (a crash makes it due again later). */
export const SEND_LEASE_SECONDS = 60;

/** What sending needs: where webhooks may go, and the jitter of the retry delays. */
export type DeliveryContext = {
  db: Db;
  send: WebhookSendOptions;
  random: () => number;
  destinationGone?: DestinationGone;
};

/** What became of one send, for the sender's log (its error is for the server's records only). */
export type DeliveryResult =
  | { kind: "no_endpoint" }
  | { kind: "delivered"; status: number }
  | { kind: "failed"; status: number | null; error: string; giveUp: boolean };

/**
 * Sends one message taken from the outbox and records what came of it: the one outbound path of
 * the worker's rounds and of a person's resend alike. Signed per Standard Webhooks, except a
 * Slack-compatible destination (`signingSecret` null), whose URL is its credential. A failed send
 * backs off with jitter, is given up on a 410 (which disables the endpoint or destination) or its
 * last attempt, and counts in `recovery_notification_failures_total`.
 */
export async function deliverMessage(ctx: DeliveryContext, message: DueNotification): Promise<DeliveryResult> {
  const endpoint = await deliveryEndpointFor(ctx.db, message);
  if (!endpoint) {
    await recordDeliveryOutcome(ctx.db, message.id, { kind: "no_endpoint" });
    return { kind: "no_endpoint" };
  }
  const body = JSON.stringify(message.payload);
  let status: number | null = null;
  let error: string | null = null;
  let refused = false;
  try {
    const headers: Record<string, string> = endpoint.signingSecret
      ? webhookHeaders(endpoint.signingSecret, message.id, body)
      : { "content-type": "application/json" };
    const attempt = await sendWebhook(endpoint.url, headers, body, ctx.send);
    if (attempt.kind === "refused") {
      refused = true;
      error = `refused: ${attempt.reason}`;
    } else if (attempt.kind === "answered") {
      status = attempt.status;
    } else {
      error = attempt.error;
    }
  } catch (cause) {
    error = cause instanceof Error ? cause.message : String(cause);
  }
  const now = new Date();
  if (isDelivered(status)) {
    await recordDeliveryOutcome(ctx.db, message.id, { kind: "delivered", status }, now);
    return { kind: "delivered", status };
  }
  const { giveUp, disableEndpoint, retryInMs } = afterFailedSend(status, message.attempts, ctx.random);
  const failure = error ?? `HTTP ${status}`;
  await recordDeliveryOutcome(
    ctx.db,
    message.id,
    {
      kind: "failed",
      status,
      error: failure,
      answer: failedAttemptOutcome(status, refused),
      nextAttemptAt: retryInMs === null ? null : new Date(now.getTime() + retryInMs),
      disable: disableEndpoint ? endpoint : null,
    },
    now,
    ctx.destinationGone,
  );
  increment("recovery_notification_failures_total", {
    status: refused ? "refused" : status === null ? "transport" : String(status),
  });
  return { kind: "failed", status, error: failure, giveUp };
}
