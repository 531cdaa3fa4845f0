import { lookup as dnsLookup } from "node:dns/promises";
import { increment } from "@/lib/metrics/counters";
import { postWebhook } from "@/lib/notify/post-webhook";
import { webhookHeaders } from "@/lib/notify/sign-webhook";
import { parseWebhookAllowList } from "@/lib/notify/webhook-allow-list";
import { vetWebhookTarget, type WebhookLookup } from "@/lib/notify/webhook-target";
import { workerLog } from "./log";
import type { WorkerContext } from "./worker-context";

const MAX_ATTEMPTS = 12;
const SEND_TIMEOUT_MS = 10_000;
/** While a worker sends a message, nobody else picks it up (a crash makes it due again later). */
const SEND_LEASE_SECONDS = 60;

/** No exceptions: public https addresses only, unless the context brings an allow-list. */
const PUBLIC_ONLY = parseWebhookAllowList("");
const systemLookup: WebhookLookup = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

type Due = { id: string; producer: string; payload: unknown; attempts: number };

function retryDelayMs(attempts: number, random: () => number): number {
  const ceiling = Math.min(6 * 3600, 10 * 2 ** attempts) * 1000;
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/**
 * Sends due webhooks from the outbox, signed per Standard Webhooks, to the producer's configured
 * endpoint only (never a URL from a request). Retries back off with jitter; 410 disables the
 * endpoint; the `webhook-id` stays the same across retries so receivers can deduplicate.
 * The endpoint's address is checked at send time (names can change what they resolve to after the
 * URL was saved) and the connection goes to that checked address. A refused address is recorded
 * like any failed send and retried on the same backoff: the refusal may come from a name that
 * briefly resolved somewhere private, or be fixed by an admin, and the bounded attempts and
 * growing delays keep it from becoming a storm (docs/decisions/018).
 */
export async function dispatchNotifications(ctx: WorkerContext, deadline: number, limit = 50): Promise<number> {
  // RETURNING comes back in no particular order: sort the batch so receivers hear oldest first.
  const due = await ctx.db.$queryRaw<Due[]>`
    WITH taken AS (
      UPDATE notification_outbox o
      SET next_attempt_at = now() + make_interval(secs => ${SEND_LEASE_SECONDS}::int), attempts = o.attempts + 1
      WHERE o.id IN (
        SELECT id FROM notification_outbox
        WHERE delivered_at IS NULL AND give_up_at IS NULL AND next_attempt_at <= now()
        ORDER BY next_attempt_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
      RETURNING o.id, o.producer, o.payload, o.attempts, o.created_at)
    SELECT id, producer, payload, attempts FROM taken ORDER BY created_at, id`;
  let delivered = 0;
  for (const message of due) {
    if (Date.now() > deadline) break;
    if (await send(ctx, message)) delivered += 1;
  }
  return delivered;
}

async function send(ctx: WorkerContext, message: Due): Promise<boolean> {
  const endpoint = await ctx.db.notificationEndpoint.findUnique({ where: { producer: message.producer } });
  if (!endpoint || endpoint.disabledAt) {
    await ctx.db.notificationOutbox.update({
      where: { id: message.id },
      data: { giveUpAt: new Date(), lastError: "no active endpoint" },
    });
    return false;
  }
  const body = JSON.stringify(message.payload);
  let status: number | null = null;
  let error: string | null = null;
  let refused = false;
  try {
    const vetting = await withTimeout(
      vetWebhookTarget(endpoint.url, ctx.webhookAllowList ?? PUBLIC_ONLY, ctx.webhookLookup ?? systemLookup),
      SEND_TIMEOUT_MS,
    );
    const headers = webhookHeaders(endpoint.signingSecret, message.id, body);
    if (!vetting.ok) {
      refused = true;
      error = `refused: ${vetting.reason}`;
    } else if (ctx.fetchImpl) {
      const response = await ctx.fetchImpl(endpoint.url, { method: "POST", headers, body, redirect: "manual" });
      status = response.status;
      await response.body?.cancel();
    } else {
      status = await postWebhook(vetting.target, headers, body, SEND_TIMEOUT_MS);
    }
  } catch (cause) {
    error = cause instanceof Error ? cause.message : String(cause);
  }
  const now = new Date();
  if (status !== null && status >= 200 && status < 300) {
    await ctx.db.notificationOutbox.update({
      where: { id: message.id },
      data: { deliveredAt: now, lastStatus: status, lastError: null },
    });
    workerLog({ step: "notified", webhookId: message.id, producer: message.producer, status });
    return true;
  }
  if (status === 410) {
    await ctx.db.notificationEndpoint.update({ where: { id: endpoint.id }, data: { disabledAt: now } });
  }
  const giveUp = status === 410 || message.attempts >= MAX_ATTEMPTS;
  await ctx.db.notificationOutbox.update({
    where: { id: message.id },
    data: {
      lastStatus: status,
      lastError: error ?? `HTTP ${status}`,
      ...(giveUp
        ? { giveUpAt: now }
        : { nextAttemptAt: new Date(now.getTime() + retryDelayMs(message.attempts, ctx.random)) }),
    },
  });
  increment("recovery_notification_failures_total", {
    status: refused ? "refused" : status === null ? "transport" : String(status),
  });
  workerLog({ step: "notify_failed", webhookId: message.id, producer: message.producer, status, error, giveUp });
  return false;
}

/** A lookup cannot be cancelled; a hung resolver must still not hold the tick. */
function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
