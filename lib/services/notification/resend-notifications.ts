import { recordAudit } from "@/lib/audit/writer";
import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { sqlRows } from "@/lib/db/sql-rows";
import { inTransaction } from "@/lib/db/transaction";
import type { Principal } from "@/lib/domain/principal";
import { AppError } from "@/lib/errors";
import type { WebhookSendOptions } from "@/lib/notify/send-webhook";
import { requireCaseInScope, requirePermission, requireProducer } from "../access/actor";
import { consumeRateLimit } from "../access/consume-rate-limit";
import type { DueNotification } from "./claim-notification-deliveries";
import { deliverMessage, SEND_LEASE_SECONDS } from "./deliver-message";
import { findDeliverableEndpoint } from "./notification-endpoint-signature";
import { GIVEN_UP, givenUpNotifications } from "./producer-not-told";

/**
 * Resends per case per hour, counted whatever they came to: each one is a person (or a producer's
 * program) asking the server to call an outside address now, so a stuck receiver cannot be hammered
 * from the console or the API. Past it: `429 rate_limited` with Retry-After (decision 045).
 */
export const RESENDS_PER_CASE_PER_HOUR = 3;
const WINDOW_SECONDS = 3600;

export type ResendOptions = { send: WebhookSendOptions; random: () => number };

export type ResendResult = {
  resent: Array<{ webhookId: string; eventType: string; delivered: boolean; status: number | null }>;
  /** Whether the case is still flagged: some message is given up again, or was not among these. */
  producerNotTold: boolean;
};

type CaseRef = { id: string; producer: string; episode: number };

/** A person's resend from the case page or the console's API: anyone who may tell the producer. */
export async function resendCaseNotifications(
  db: Db,
  actor: Principal,
  caseId: string,
  options: ResendOptions,
): Promise<ResendResult> {
  const user = requirePermission(actor, "case:notify_producer");
  const found = await db.case.findUnique({
    where: { id: caseId },
    select: { id: true, producer: true, episode: true },
  });
  if (!found) throw new AppError("not_found", "No such case.");
  requireCaseInScope(user, found.producer);
  return resend(db, user, found, options);
}

/** A producer's resend of its own operation's given-up messages, by the operation ID it knows. */
export async function resendOwnNotifications(
  db: Db,
  actor: Principal,
  operationId: string,
  options: ResendOptions,
): Promise<ResendResult> {
  const producer = requireProducer(actor);
  const found = await db.case.findFirst({
    where: { producer: producer.name, operationId },
    select: { id: true, producer: true, episode: true },
  });
  if (!found) throw new AppError("not_found", "No case for that operation.");
  return resend(db, producer, found, options);
}

/**
 * Sends the case's given-up messages again, through the same sender as the worker's rounds. The
 * intent is committed first (DESIGN rule 9): the messages are taken back from "given up" under a
 * send lease (a crash leaves them to the worker's next round) and the resend is audited on the
 * case's timeline. A message that fails again is given up again as any send is, and stays flagged.
 */
async function resend(db: Db, actor: Principal, target: CaseRef, options: ResendOptions): Promise<ResendResult> {
  if ((await givenUpNotifications(db, target.id)).length === 0) {
    throw new AppError("nothing_to_resend", "Every message about this case was delivered or is still being sent.");
  }
  if (!(await findDeliverableEndpoint(db, target.producer))) {
    throw new AppError(
      "endpoint_disabled",
      "The producer has no enabled notification endpoint (a 410 answer disables it): enable it before resending.",
    );
  }
  const limit = await consumeRateLimit(db, `notify-resend:${target.id}`, RESENDS_PER_CASE_PER_HOUR, WINDOW_SECONDS);
  if (!limit.allowed) {
    throw new AppError("rate_limited", `At most ${RESENDS_PER_CASE_PER_HOUR} resends of a case an hour.`, {
      retryAfterSeconds: limit.retryAfterSeconds,
    });
  }
  const taken = await inTransaction(db, async (tx) => {
    const rows = await sqlRows<DueNotification & { eventType: string }>(
      tx,
      Prisma.sql`
      WITH taken AS (
        UPDATE notification_outbox
        SET give_up_at = NULL, next_attempt_at = now() + make_interval(secs => ${SEND_LEASE_SECONDS}::int),
            attempts = attempts + 1
        WHERE case_id = ${target.id}::uuid AND ${GIVEN_UP}
        RETURNING id, producer, payload, attempts, event_type, created_at)
      SELECT id, producer, NULL::text AS "alertDestinationId", payload, attempts, event_type AS "eventType"
      FROM taken ORDER BY created_at, id`,
    );
    if (rows.length === 0) {
      throw new AppError("nothing_to_resend", "Another resend of this case took its messages a moment ago.");
    }
    await recordAudit(tx, {
      actor,
      kind: "notification_resent",
      caseId: target.id,
      episode: target.episode,
      evidence: { webhookIds: rows.map((r) => r.id), eventTypes: rows.map((r) => r.eventType) },
    });
    return rows;
  });
  const resent: ResendResult["resent"] = [];
  for (const message of taken) {
    const result = await deliverMessage({ db, ...options }, message);
    resent.push({
      webhookId: message.id,
      eventType: message.eventType,
      delivered: result.kind === "delivered",
      status: result.kind === "no_endpoint" ? null : result.status,
    });
  }
  return { resent, producerNotTold: (await givenUpNotifications(db, target.id)).length > 0 };
}
