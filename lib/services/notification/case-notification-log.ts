import type { Db } from "@/lib/db/client";
import type { AttemptOutcome, NotificationState } from "@/lib/domain/notification-attempts";
import type { Principal } from "@/lib/domain/principal";
import { AppError } from "@/lib/errors";
import { requireCaseInScope, requirePermission } from "../access/actor";

/** The newest messages a case page lists, and the newest sends of each: a case has a handful. */
export const LOG_MESSAGES = 50;
export const LOG_SENDS_PER_MESSAGE = 30;

export type LoggedSend = { id: string; outcome: AttemptOutcome; status: number | null; answeredAt: string };
export type LoggedNotification = {
  webhookId: string;
  eventType: string;
  state: NotificationState;
  createdAt: string;
  /** Sends the log holds (oldest first), and how many the message has had in all. */
  sends: LoggedSend[];
  sendCount: number;
};

/**
 * A case's producer notifications, newest first, each with its sends' answers (decision 066).
 * Anyone who may read the case reads them; a person outside the producer's scope gets `not_found`.
 */
export async function caseNotificationLog(db: Db, actor: Principal, caseId: string): Promise<LoggedNotification[]> {
  const user = requirePermission(actor, "case:read");
  const found = await db.case.findUnique({ where: { id: caseId }, select: { producer: true } });
  if (!found) throw new AppError("not_found", "No such case.");
  requireCaseInScope(user, found.producer);
  const messages = await db.notificationOutbox.findMany({
    where: { caseId, producer: { not: null } },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: LOG_MESSAGES,
    select: {
      id: true,
      eventType: true,
      createdAt: true,
      deliveredAt: true,
      giveUpAt: true,
      attempts: true,
      sends: {
        orderBy: { id: "desc" },
        take: LOG_SENDS_PER_MESSAGE,
        select: { id: true, outcome: true, status: true, answeredAt: true },
      },
    },
  });
  return messages.map((m) => ({
    webhookId: m.id,
    eventType: m.eventType,
    state: m.deliveredAt ? "delivered" : m.giveUpAt ? "given_up" : "queued",
    createdAt: m.createdAt.toISOString(),
    sendCount: Math.max(m.attempts, m.sends.length),
    sends: m.sends.reverse().map((s) => ({
      id: String(s.id),
      outcome: s.outcome as AttemptOutcome,
      status: s.status,
      answeredAt: s.answeredAt.toISOString(),
    })),
  }));
}
