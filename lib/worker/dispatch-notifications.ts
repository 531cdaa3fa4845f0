import { afterFailedSend, isDelivered } from "@/lib/domain/webhook-retry";
import { increment } from "@/lib/metrics/counters";
import { sendWebhook } from "@/lib/notify/send-webhook";
import { webhookHeaders } from "@/lib/notify/sign-webhook";
import { parseWebhookAllowList } from "@/lib/notify/webhook-allow-list";
import {
  claimNotificationDeliveries,
  type DueNotification,
  deliveryEndpointFor,
} from "@/lib/services/notification/claim-notification-deliveries";
import { recordDeliveryOutcome } from "@/lib/services/notification/record-delivery-outcome";
import { workerLog } from "./log";
import type { WorkerContext } from "./worker-context";

/** While a worker sends a message, nobody else picks it up (a crash makes it due again later). */
const SEND_LEASE_SECONDS = 60;

/** No exceptions: public https addresses only, unless the context brings an allow-list. */
const PUBLIC_ONLY = parseWebhookAllowList("");

/**
 * Sends due webhooks from the outbox, signed per Standard Webhooks, to the producer's configured
 * endpoint or the alert's admin-configured destination only (never a URL from a request; a
 * Slack-compatible destination is sent its message unsigned, its URL being its credential).
 * `alertsOnly` leaves producers' notifications to the workers (the console's own alert round).
 * Retries back off with jitter; 410 disables the endpoint or destination; the `webhook-id` stays
 * the same across retries so receivers can deduplicate.
 * The endpoint's address is checked at send time (names can change what they resolve to after the
 * URL was saved) and the connection goes to that checked address. A refused address is recorded
 * like any failed send and retried on the same backoff: the refusal may come from a name that
 * briefly resolved somewhere private, or be fixed by an admin, and the bounded attempts and
 * growing delays keep it from becoming a storm (docs/decisions/018).
 */
export async function dispatchNotifications(
  ctx: WorkerContext,
  deadline: number,
  limit = 50,
  options: { alertsOnly?: boolean } = {},
): Promise<number> {
  const due = await claimNotificationDeliveries(ctx.db, { limit, leaseSeconds: SEND_LEASE_SECONDS, ...options });
  let delivered = 0;
  for (const message of due) {
    if (Date.now() > deadline) break;
    if (await send(ctx, message)) delivered += 1;
  }
  return delivered;
}

async function send(ctx: WorkerContext, message: DueNotification): Promise<boolean> {
  const endpoint = await deliveryEndpointFor(ctx.db, message);
  if (!endpoint) {
    await recordDeliveryOutcome(ctx.db, message.id, { kind: "no_endpoint" });
    return false;
  }
  const body = JSON.stringify(message.payload);
  let status: number | null = null;
  let error: string | null = null;
  let refused = false;
  try {
    // A Slack-compatible destination verifies nothing: its URL is the secret.
    const headers: Record<string, string> = endpoint.signingSecret
      ? webhookHeaders(endpoint.signingSecret, message.id, body)
      : { "content-type": "application/json" };
    const attempt = await sendWebhook(endpoint.url, headers, body, {
      allow: ctx.webhookAllowList ?? PUBLIC_ONLY,
      ...(ctx.webhookLookup ? { lookup: ctx.webhookLookup } : {}),
      ...(ctx.fetchImpl ? { fetchImpl: ctx.fetchImpl } : {}),
    });
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
    workerLog({ step: "notified", webhookId: message.id, ...recipientOf(message), status });
    return true;
  }
  const { giveUp, disableEndpoint, retryInMs } = afterFailedSend(status, message.attempts, ctx.random);
  await recordDeliveryOutcome(
    ctx.db,
    message.id,
    {
      kind: "failed",
      status,
      error: error ?? `HTTP ${status}`,
      nextAttemptAt: retryInMs === null ? null : new Date(now.getTime() + retryInMs),
      disable: disableEndpoint ? endpoint : null,
    },
    now,
  );
  increment("recovery_notification_failures_total", {
    status: refused ? "refused" : status === null ? "transport" : String(status),
  });
  workerLog({ step: "notify_failed", webhookId: message.id, ...recipientOf(message), status, error, giveUp });
  return false;
}

const recipientOf = (message: DueNotification) =>
  message.producer ? { producer: message.producer } : { alertDestinationId: message.alertDestinationId };
