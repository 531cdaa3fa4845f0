import { parseWebhookAllowList } from "@/lib/notify/webhook-allow-list";
import { disableGoneDestination } from "@/lib/services/alert/disable-gone-destination";
import {
  claimNotificationDeliveries,
  type DueNotification,
} from "@/lib/services/notification/claim-notification-deliveries";
import { deliverMessage, SEND_LEASE_SECONDS } from "@/lib/services/notification/deliver-message";
import { workerLog } from "./log";
import type { WorkerContext } from "./worker-context";

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
  const result = await deliverMessage(
    {
      db: ctx.db,
      random: ctx.random,
      destinationGone: disableGoneDestination,
      send: {
        allow: ctx.webhookAllowList ?? PUBLIC_ONLY,
        ...(ctx.webhookLookup ? { lookup: ctx.webhookLookup } : {}),
        ...(ctx.fetchImpl ? { fetchImpl: ctx.fetchImpl } : {}),
      },
    },
    message,
  );
  if (result.kind === "delivered") {
    workerLog({ step: "notified", webhookId: message.id, ...recipientOf(message), status: result.status });
    return true;
  }
  if (result.kind === "failed") {
    const { status, error, giveUp } = result;
    workerLog({ step: "notify_failed", webhookId: message.id, ...recipientOf(message), status, error, giveUp });
  }
  return false;
}

const recipientOf = (message: DueNotification) =>
  message.producer ? { producer: message.producer } : { alertDestinationId: message.alertDestinationId };
