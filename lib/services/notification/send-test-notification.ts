import type { Db } from "@/lib/db/client";
import type { Principal } from "@/lib/domain/principal";
import { isDelivered } from "@/lib/domain/webhook-retry";
import { AppError } from "@/lib/errors";
import { logger } from "@/lib/log/logger";
import { SEND_TIMEOUT_MS, sendWebhook, type WebhookSendOptions } from "@/lib/notify/send-webhook";
import { webhookHeaders } from "@/lib/notify/sign-webhook";
import { requireProducer } from "../access/actor";
import { consumeRateLimit } from "../access/consume-rate-limit";
import { NO_OWN_ENDPOINT } from "./endpoint-manager";
import { webhookMessage } from "./enqueue-notification";
import { findDeliverableEndpoint } from "./notification-endpoint-signature";

export const TEST_EVENT_TYPE = "endpoint.test";
/**
 * Test sends per producer per minute. Each one makes the server resolve a name and open a
 * connection for up to 10 s on the caller's behalf, so it is counted apart from (and far below)
 * the API's own rate, across all of the producer's keys.
 */
export const TEST_SENDS_PER_MINUTE = 5;
const WINDOW_SECONDS = 60;

/** Why a test was not delivered, for programs; the `message` is for people. */
export type TestFailure = "http_status" | "address_refused" | "no_answer";

export type TestNotificationResult =
  | { delivered: true; webhookId: string; status: number }
  | { delivered: false; webhookId: string; status: number | null; failure: TestFailure; message: string };

/**
 * Sends the calling producer's endpoint one signed `endpoint.test` event, now, and says what came
 * of it. It leaves the server the way every notification does (`sendWebhook`: the address checked
 * at send time against the same rules and allow-list, the connection pinned to the checked address,
 * no redirects), signed with the endpoint's current secret. It is not written to the outbox: it is
 * tried once and never retried, and a 410 answer does not disable the endpoint (the producer asked
 * for this send and reads the status). The answer names a refused address's rule only in general:
 * what the producer's name resolves to inside this network stays in the server's log.
 */
export async function sendTestNotification(
  db: Db,
  actor: Principal,
  options: WebhookSendOptions,
): Promise<TestNotificationResult> {
  const { name: producer } = requireProducer(actor);
  const limit = await consumeRateLimit(db, `notify-test:${producer}`, TEST_SENDS_PER_MINUTE, WINDOW_SECONDS);
  if (!limit.allowed) {
    throw new AppError(
      "rate_limited",
      `At most ${TEST_SENDS_PER_MINUTE} test notifications a minute; try again later.`,
      {
        retryAfterSeconds: limit.retryAfterSeconds,
      },
    );
  }
  const registered = await db.notificationEndpoint.findUnique({ where: { producer }, select: { disabledAt: true } });
  if (!registered) throw new AppError("not_found", NO_OWN_ENDPOINT);
  const endpoint = await findDeliverableEndpoint(db, producer);
  if (!endpoint) {
    throw new AppError("endpoint_disabled", "The notification endpoint is disabled: enable it before testing it.");
  }
  const { id, payload } = webhookMessage(TEST_EVENT_TYPE, { producer, endpointId: endpoint.id });
  const body = JSON.stringify(payload);
  const attempt = await sendWebhook(endpoint.url, webhookHeaders(endpoint.signingSecret, id, body), body, options);
  if (attempt.kind === "answered" && isDelivered(attempt.status)) {
    return { delivered: true, webhookId: id, status: attempt.status };
  }
  logger("notify").warn({ producer, webhookId: id, attempt }, "test notification not delivered");
  switch (attempt.kind) {
    case "answered":
      return {
        delivered: false,
        webhookId: id,
        status: attempt.status,
        failure: "http_status",
        message: `The endpoint answered HTTP ${attempt.status}; a notification counts as delivered on a 2xx answer (redirects are not followed).`,
      };
    case "refused":
      return {
        delivered: false,
        webhookId: id,
        status: null,
        failure: "address_refused",
        message:
          "The endpoint's address was refused before connecting: notifications go only to public addresses over https.",
      };
    case "no_answer":
      return {
        delivered: false,
        webhookId: id,
        status: null,
        failure: "no_answer",
        message: `No answer from the endpoint within ${SEND_TIMEOUT_MS / 1000} s (no connection, a TLS failure or a timeout).`,
      };
  }
}
